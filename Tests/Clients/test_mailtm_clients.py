"""mail.tm's API and its Mercure hub (issue 72) against a real `postern serve --profile test`, through unchanged
clients from PyPI pointed at `<server>/mailtm`: pymailtm (account, wait_for_message after an SMTP delivery, read,
delete), mailtmapi (every call; its pydantic models refuse a missing or mistyped field), multitempmail's mail.tm and
Mail.td providers through its own interface, and httpx-sse on the Mercure hub (an event after an SMTP delivery,
Last-Event-ID, a foreign topic refused). Then one store (a Pro user's account: a message marked seen through mail.tm
is read seen through Mail.td, JMAP with the account's mailbox token, and the operator API, read by id through mail.cx
with the Pro token, marked unread through JMAP and seen so through mail.tm, and a message destroyed through JMAP gone
through every other door) and bad input, each its documented error with nothing changed. Every flow runs on SQLite and on PostgreSQL
(`BACKENDS`).

Mail goes in over SMTP (smtplib). A client that waits for "new" mail snapshots what is there first, and nothing tells
this test when it has: so while it waits, a message is delivered every few seconds until it returns (each with its own
subject), and what is checked is what it returned. Waits are generous; nothing is timed."""

import asyncio
import json
import os
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from postern_testkit.mailtd import create_account, pro_login, pro_token
from postern_testkit.postgres import BACKENDS
from postern_testkit.tempmail import deliver, install_clients

install_clients()
import aiohttp  # noqa: E402
import httpx  # noqa: E402
from httpx_sse import connect_sse  # noqa: E402
from mailtmapi import MailTM  # noqa: E402
from multitempmail import TempMailClient  # noqa: E402
from multitempmail.http import HTTPClient  # noqa: E402
from multitempmail.providers.mailtd import MailTdProvider  # noqa: E402
from multitempmail.providers.mailtm import MailTmProvider  # noqa: E402
from pydantic import ValidationError  # noqa: E402
from pymailtm.pymailtm import Account as PyAccount, CouldNotGetAccountException, MailTm  # noqa: E402

check = Checks()
PRO = ("pro@example.com", "pro-password-1")
OPERATOR = "operator-token-for-the-mailtm-test-0123456789"
PASSWORD = "secret-password-1"
# How long a client may wait for mail here: far past what a busy machine needs; what is checked is what came.
WAIT_SECONDS = 120


def while_waiting(server, to, prefix, wait, attachment=None):
    """Runs `wait()` (a client's own wait for new mail) while a message to `to` is delivered every 3 s, subjects
    `<prefix> 1`, `<prefix> 2`...; returns what `wait` returned."""
    done = threading.Event()
    result = {}

    def run():
        try:
            result["value"] = wait()
        except Exception as error:  # reported below as the check's failure
            result["error"] = error
        done.set()
    threading.Thread(target=run, daemon=True).start()
    sent = 0
    while not done.wait(3 if sent else 1) and sent < WAIT_SECONDS // 3:
        sent += 1
        deliver(server, to, f"{prefix} {sent}", text=f"{prefix} body {sent}", attachment=attachment)
    done.wait(WAIT_SECONDS)
    if "error" in result:
        raise result["error"]
    return result.get("value")


def pymailtm_flow(server, base):
    MailTm.api_address = base
    MailTm.db_file = os.path.join(tempfile.mkdtemp(), "pymailtm.json")
    account = MailTm().get_account(password=PASSWORD)
    check(account.address.endswith("@mail.localhost") and account.id_, f"pymailtm: get_account ({account.address})")
    message = while_waiting(server, account.address, "pymailtm", account.wait_for_message)
    check(message is not None and message.subject.startswith("pymailtm ")
          and message.text.strip() == message.subject.replace("pymailtm ", "pymailtm body "),
          f"pymailtm: wait_for_message after an SMTP delivery ({message and message.subject})")
    check(message.from_ == {"name": "App", "address": "app@example.com"} and message.to[0]["address"] == account.address
          and message.intro.startswith("pymailtm body"), "pymailtm: from, to and intro of the list item")
    listed = account.get_messages()
    check(len(listed) >= 1 and all(m.html == [] for m in listed), f"pymailtm: get_messages ({len(listed)})")
    check(account.delete_account(), "pymailtm: delete_account → 204")
    try:
        PyAccount(account.id_, account.address, PASSWORD)
        gone = False
    except CouldNotGetAccountException:
        gone = True
    check(gone, "pymailtm: the deleted account's token is refused")


async def mailtmapi_flow(server, base):
    async with aiohttp.ClientSession() as session:
        api = MailTM(session)
        api.API_URL = base
        domains = await api.get_domains()
        check(domains.hydra_totalItems == 1 and domains.hydra_member[0].domain == "mail.localhost",
              "mailtmapi: get_domains (Domains model)")
        domain = await api.get_domain(domains.hydra_member[0].id)
        check(domain.domain == "mail.localhost" and domain.isActive and not domain.isPrivate, "mailtmapi: get_domain")
        account = await api.get_account(password=PASSWORD)
        check(account.address.endswith("@mail.localhost") and account.quota > 0 and account.used == 0,
              "mailtmapi: get_account (Account model, with its token)")
        token = (await api.get_account_token(account.address, PASSWORD)).token
        for name, call in [("get_me", api.get_me(token)), ("get_account_by_id", api.get_account_by_id(account.id, token))]:
            # The model wants the `token` that get_account adds itself; mail.tm's Account has none, so only it may
            # be missing: every other field is checked.
            try:
                await call
                missing = []
            except ValidationError as error:
                missing = [(e["type"], e["loc"]) for e in error.errors()]
            check(missing == [("missing", ("token",))], f"mailtmapi: {name}: every field but its own token ({missing})")
        deliver(server, account.address, "mailtmapi", text="mailtmapi body", attachment=("data.bin", b"\x00\x01\x02"))
        messages = None
        for _ in range(WAIT_SECONDS * 4):
            messages = await api.get_messages(token)
            if messages.hydra_member:
                break
            await asyncio.sleep(0.25)
        check(messages.hydra_totalItems == 1 and messages.hydra_view is None and messages.hydra_member[0].hasAttachments,
              "mailtmapi: get_messages (Messages model)")
        message_id = messages.hydra_member[0].id
        one = await api.get_message_by_id(message_id, token)
        check(one.text.strip() == "mailtmapi body" and one.attachments[0].filename == "data.bin"
              and one.attachments[0].size == 3, "mailtmapi: get_message_by_id (OneMessage model)")
        source = await api.get_message_source_by_id(message_id, token)
        check("Subject: mailtmapi" in source.data and source.id == message_id, "mailtmapi: get_message_source_by_id")
        await api.set_read_message_by_id(message_id, token)
        seen = (await api.get_messages(token)).hydra_member[0].seen
        check(seen, "mailtmapi: set_read_message_by_id marks it seen")
        check(await api.delete_message_by_id(message_id, token), "mailtmapi: delete_message_by_id → 204")
        check((await api.get_messages(token)).hydra_totalItems == 0, "mailtmapi: the message is gone")
        check(await api.delete_account_by_id(account.id, token), "mailtmapi: delete_account_by_id → 204")


def multitempmail_flow(server, base, api_token):
    for name, provider, gone in [
        ("mail.tm", MailTmProvider(http=HTTPClient(base_url=base, retries=0)),
         lambda box: http(base, "GET", "/me", bearer=box.token)[0] == 401),
        ("Mail.td", MailTdProvider(api_key=api_token, http=HTTPClient(base_url=server, retries=0)),
         lambda box: http(server, "GET", f"/api/accounts/{box.address}", bearer=api_token)[0] == 404),
    ]:
        client = TempMailClient(provider)
        box = client.create()
        check(box.address.endswith("@mail.localhost"), f"multitempmail {name}: create ({box.address})")
        got = while_waiting(server, box.address, f"multi {name}",
                            lambda: client.wait_for_message(box, timeout=WAIT_SECONDS, interval=0.5),
                            attachment=("report.txt", b"attached bytes"))
        check(got is not None and got.subject.startswith(f"multi {name}"), f"multitempmail {name}: wait_for_message")
        full = client.message(box, got.id)
        check(full.body_text.strip().startswith(f"multi {name} body") and full.attachments[0].filename == "report.txt",
              f"multitempmail {name}: message with its attachment")
        check(client.download(box, full, 0) == b"attached bytes", f"multitempmail {name}: download the attachment")
        client.mark_read(box, got.id)
        check(client.message(box, got.id).seen is not False, f"multitempmail {name}: mark_read")
        client.delete(box, got.id)
        check(all(m.id != got.id for m in client.messages(box)), f"multitempmail {name}: delete the message")
        client.delete_mailbox(box)
        check(gone(box), f"multitempmail {name}: delete_mailbox (the account is gone)")


def account(base, local):
    address = f"{local}@mail.localhost"
    status, _, body = http(base, "POST", "/accounts", {"address": address, "password": PASSWORD})
    check(status == 201 and body["@type"] == "Account", f"POST /accounts {local} → 201 ({status})")
    status, _, body = http(base, "POST", "/token", {"address": address, "password": PASSWORD})
    return {"id": body["id"], "address": address, "token": body["token"]}


def mercure_flow(server, base):
    owner = account(base, "mercure-user")
    hub = base + "/.well-known/mercure"
    topic = {"topic": f"/accounts/{owner['id']}"}
    auth = {"Authorization": "Bearer " + owner["token"]}
    with httpx.Client(timeout=WAIT_SECONDS) as client:
        with connect_sse(client, "GET", hub, params=topic, headers=auth) as source:
            check(source.response.status_code == 200, "Mercure: the account's own topic → 200 text/event-stream")
            deliver(server, owner["address"], "mercure 1")
            first = next(source.iter_sse())
        data = json.loads(first.data)
        check(data["@type"] == "Account" and data["id"] == owner["id"] and data["used"] > 0,
              f"Mercure: an Account event with its new used after an SMTP delivery ({data.get('used')})")
        deliver(server, owner["address"], "mercure 2")  # while no stream is open
        with connect_sse(client, "GET", hub, params=topic, headers=dict(auth, **{"Last-Event-ID": first.id})) as source:
            second = next(source.iter_sse())
        check(json.loads(second.data)["used"] > data["used"] and second.id != first.id,
              "Mercure: reconnecting with Last-Event-ID sends what arrived meanwhile")
        other = account(base, "mercure-other")
        for name, params, headers, status in [
            ("another account's topic", {"topic": f"/accounts/{other['id']}"}, auth, 403),
            ("no topic", {}, auth, 400),
            ("no token", topic, {}, 401),
            ("another account's token", topic, {"Authorization": "Bearer " + other["token"]}, 403),
        ]:
            response = client.get(hub, params=params, headers=headers)
            check(response.status_code == status, f"Mercure: {name} → {status} ({response.status_code})")


def wait_for_listed(base, token, subject):
    """The id of the message with `subject` once mail.tm lists it (polled, generous)."""
    for _ in range(WAIT_SECONDS * 4):
        _, _, listing = http(base, "GET", "/messages", bearer=token)
        found = [m["id"] for m in listing["hydra:member"] if m["subject"] == subject]
        if found:
            return found[0]
        threading.Event().wait(0.25)
    raise AssertionError(f"mail.tm never listed {subject!r}")


def jmap(server, token, *calls):
    """The method responses of one JMAP request with a Mail.td mailbox token ("accountId" filled in)."""
    status, _, session = http(server, "GET", "/.well-known/jmap", bearer=token)
    assert status == 200, f"JMAP session with a mailbox token: {status} {session}"
    account = session["primaryAccounts"]["urn:ietf:params:jmap:mail"]
    using = ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail"]
    method_calls = [[name, {"accountId": account} | arguments, tag] for name, arguments, tag in calls]
    status, _, body = http(server, "POST", "/jmap/api", {"using": using, "methodCalls": method_calls}, bearer=token)
    assert status == 200, f"JMAP request with a mailbox token: {status} {body}"
    return account, body["methodResponses"]


def one_store(server, base, pro_bearer):
    """One message of a Pro user's Mail.td account through every door: mail.tm (the account's token from mail.tm's
    /token), Mail.td (the same token), mail.cx (the Pro user's API token, which reaches its accounts' inboxes), JMAP
    (the same mailbox token, read-only) and the operator API: the same id, its read state set through one door and
    seen through the others, and a deletion through JMAP gone through every other."""
    api_token = pro_token(server, pro_bearer, "one-store")["token"]
    address = "one-store@mail.localhost"
    created = create_account(server, address, password=PASSWORD, bearer=api_token)
    status, _, body = http(base, "POST", "/token", {"address": address, "password": PASSWORD})
    check(status == 200 and body["id"] == created["id"], f"mail.tm /token opens the Pro user's account ({status})")
    owner = {"id": body["id"], "address": address, "token": body["token"]}
    cx = server + "/mailcx/v1"
    deliver(server, address, "one store")
    message_id = wait_for_listed(base, owner["token"], "one store")
    status, _, patched = http(base, "PATCH", f"/messages/{message_id}", {"seen": True},
                              headers={"Content-Type": "application/merge-patch+json"}, bearer=owner["token"])
    check(status == 200 and patched["seen"] is True, f"PATCH seen through mail.tm → 200 ({status})")
    _, _, mailtd = http(server, "GET", f"/api/accounts/{owner['id']}/messages", bearer=owner["token"])
    check(mailtd["messages"][0]["id"] == message_id and mailtd["messages"][0]["is_read"] is True,
          "one store: Mail.td lists it read, with the same id, the same token")
    _, _, operator = http(server, "GET", f"/api/operator/messages/{message_id}", bearer=OPERATOR)
    check(operator.get("is_read") is True, f"one store: the operator API reads it read ({operator.get('is_read')})")
    status, _, email = http(cx, "GET", f"/email/{message_id}", headers={"x-api-token": api_token})
    check(status == 200 and email["id"] == message_id and email["subject"] == "one store"
          and email["address"] == address, f"one store: mail.cx reads it by the same id, with the Pro token ({status})")
    status, _, _ = http(cx, "GET", f"/email/{message_id}")
    check(status == 404, f"… and not without it: an account's message is not an implicit mailbox's ({status})")
    account, responses = jmap(server, owner["token"], ["Email/query", {}, "q"],
                              ["Email/get", {"#ids": {"resultOf": "q", "name": "Email/query", "path": "/ids"},
                                             "properties": ["id", "subject", "keywords"]}, "g"])
    emails = responses[1][1]["list"]
    check(account == owner["id"] and [(e["id"], e["subject"]) for e in emails] == [(message_id, "one store")]
          and emails[0]["keywords"].get("$seen") is True,
          f"one store: JMAP, with the account's mailbox token, reads it seen, by the same id ({emails})")
    _, responses = jmap(server, owner["token"],
                        ["Email/set", {"update": {message_id: {"keywords/$seen": None}}}, "u"])
    check(message_id in (responses[0][1].get("updated") or {}), f"JMAP marks it unread ({responses[0][1]})")
    _, _, after = http(base, "GET", f"/messages/{message_id}", bearer=owner["token"])
    check(after["seen"] is False, "one store: mail.tm reads it unseen after JMAP's change")
    http(base, "PATCH", f"/messages/{message_id}", {"seen": True},
         headers={"Content-Type": "application/merge-patch+json"}, bearer=owner["token"])
    status, _, _ = http(server, "POST", "/jmap/api", {
        "using": ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail", "urn:ietf:params:jmap:submission"],
        "methodCalls": [["EmailSubmission/set", {"accountId": account, "create": {}}, "s"]]}, bearer=owner["token"])
    check(status == 403, f"JMAP with a mailbox token reads and changes mail but submits none: 403 ({status})")

    deliver(server, address, "one store, deleted")
    doomed = wait_for_listed(base, owner["token"], "one store, deleted")
    _, responses = jmap(server, owner["token"], ["Email/set", {"destroy": [doomed]}, "d"])
    check(responses[0][1].get("destroyed") == [doomed], f"JMAP destroys the second message ({responses[0][1]})")
    gone = [http(base, "GET", f"/messages/{doomed}", bearer=owner["token"])[0],
            http(server, "GET", f"/api/accounts/{owner['id']}/messages/{doomed}", bearer=owner["token"])[0],
            http(cx, "GET", f"/email/{doomed}", headers={"x-api-token": api_token})[0],
            http(server, "GET", f"/api/operator/messages/{doomed}", bearer=OPERATOR)[0]]
    check(gone == [404, 404, 404, 404], f"one store: gone through mail.tm, Mail.td, mail.cx and the operator ({gone})")
    return owner, message_id


def bad_input(server, base, owner, message_id):
    token = owner["token"]

    def hydra(body, status):
        return isinstance(body, dict) and body.get("@type") == "hydra:Error" and status >= 400

    status, _, body = http(base, "POST", "/accounts", b'{"address": "x@mail.localhost", "password": ',
                           headers={"Content-Type": "application/json"})
    check(status == 400 and hydra(body, status), f"malformed JSON → 400 hydra:Error ({status})")
    status, _, body = http(base, "POST", "/token", {"address": "x@mail.localhost", "password": PASSWORD})
    check(status == 401 and body == {"code": 401, "message": "Invalid credentials."},
          "… and no account was made (POST /token 401 Invalid credentials.)")
    status, _, body = http(base, "PATCH", f"/messages/{message_id}", {"seen": False, "subject": "changed"},
                           headers={"Content-Type": "application/merge-patch+json"}, bearer=token)
    _, _, after = http(base, "GET", f"/messages/{message_id}", bearer=token)
    check(status == 400 and hydra(body, status) and after["seen"] is True and after["subject"] == "one store",
          f"a merge patch with an unknown field → 400, nothing changed ({status})")
    for page in ["0", "1000000000", "-1", "abc"]:
        status, _, body = http(base, "GET", f"/messages?page={page}", bearer=token)
        check(status == 400 and hydra(body, status), f"page={page} → 400 ({status})")
    status, _, body = http(base, "GET", "/messages?page=2", bearer=token)
    check(status == 200 and body["hydra:member"] == [] and body["hydra:totalItems"] == 1,
          "a page past the last → 200, empty")
    status, _, body = http(base, "POST", "/accounts", {"address": "a" * 10240 + "@mail.localhost", "password": PASSWORD})
    check(status == 422 and body["violations"][0]["propertyPath"] == "address" and "a" * 100 not in json.dumps(body),
          f"a 10 kB address → 422 on address, not echoed ({status})")
    for name, address, password, path in [
        ("a domain not served", "x@example.com", PASSWORD, "address"),
        ("a malformed address", "not an address", PASSWORD, "address"),
        ("a taken address", owner["address"], PASSWORD, "address"),
        ("a short password", "short-pw@mail.localhost", "12345", "password"),
    ]:
        status, _, body = http(base, "POST", "/accounts", {"address": address, "password": password})
        check(status == 422 and body["@type"] == "ConstraintViolationList"
              and body["violations"][0]["propertyPath"] == path, f"{name} → 422 on {path} ({status})")
    status, _, body = http(base, "POST", "/accounts", "address=x", headers={"Content-Type": "text/plain"})
    check(status == 415 and hydra(body, status), f"a body that is not JSON → 415 ({status})")
    other = account(base, "bad-input-other")
    for method in ["GET", "DELETE"]:
        status, _, body = http(base, method, f"/messages/{message_id}", bearer=other["token"])
        check(status == 404 and hydra(body, status), f"{method} another account's message → 404 ({status})")
    status, _, body = http(base, "PATCH", f"/messages/{message_id}", {"seen": False},
                           headers={"Content-Type": "application/merge-patch+json"}, bearer=other["token"])
    check(status == 404, f"PATCH another account's message → 404 ({status})")
    for path in [f"/sources/{message_id}", f"/messages/{message_id}/download", f"/accounts/{owner['id']}"]:
        status, _, _ = http(base, "GET", path, bearer=other["token"])
        check(status == 404, f"GET {path.split('/')[1]} of another account → 404 ({status})")
    status, _, after = http(base, "GET", f"/messages/{message_id}", bearer=token)
    check(status == 200 and after["seen"] is True, "… and the owner's message is still there, still seen")
    status, _, body = http(base, "GET", "/messages")
    check(status == 401 and body == {"code": 401, "message": "JWT Token not found"}, f"no token → 401 ({status})")
    status, _, body = http(base, "GET", "/me", bearer="not.a.token")
    check(status == 401 and body == {"code": 401, "message": "Invalid JWT Token"}, f"a bad token → 401 ({status})")
    status, headers, body = http(base, "POST", "/messages", {}, bearer=token)
    check(status == 405 and hydra(body, status), f"POST /messages → 405 ({status})")
    status, _, body = http(base, "GET", "/nowhere", bearer=token)
    check(status == 404 and hydra(body, status), f"an unknown path → 404 hydra:Error ({status})")


def documented(server):
    """/openapi.json describes every mail.tm route the server serves (the schemathesis stage tests what it describes)."""
    _, _, spec = http(server, "GET", "/openapi.json")
    served = [("get", "/domains"), ("get", "/domains/{id}"), ("post", "/accounts"), ("post", "/token"), ("get", "/me"),
              ("get", "/accounts/{id}"), ("delete", "/accounts/{id}"), ("get", "/messages"),
              ("get", "/messages/{id}"), ("patch", "/messages/{id}"), ("delete", "/messages/{id}"),
              ("get", "/messages/{id}/download"), ("get", "/messages/{id}/attachment/{attachment}"),
              ("get", "/sources/{id}"), ("get", "/messages/{id}/source"), ("put", "/messages/{id}/read"),
              ("get", "/.well-known/mercure")]
    missing = [f"{m.upper()} {p}" for m, p in served if m not in spec["paths"].get("/mailtm" + p, {})]
    check(not missing, f"/openapi.json describes every mail.tm route (missing: {missing})")


def rate_limited(base):
    """With limits on (not the test profile's default), mail.tm's 8 requests a second per client: a burst past it is
    refused 429 with Retry-After, in the Hydra shape. (A burst, not a time: a request refused shows the limit.)"""
    for _ in range(400):
        status, headers, body = http(base, "GET", "/domains")
        if status != 200:
            break
    check(status == 429 and headers.get("Retry-After") and body.get("@type") == "hydra:Error",
          f"rate limits on: a burst is refused 429 with Retry-After ({status})")


def main():
    env = {"POSTERN_MAILBOX_POW_REQUIRED": "off", "POSTERN_OPERATOR_TOKEN": OPERATOR}
    for backend in BACKENDS:
        check.context = f"[{backend}] "
        with postern(env=env, pro_users=[PRO], backend=backend) as server:
            base = server + "/mailtm"
            pymailtm_flow(server, base)
            asyncio.run(mailtmapi_flow(server, base))
            pro_bearer = pro_login(server, *PRO)
            multitempmail_flow(server, base, pro_token(server, pro_bearer, "multitempmail")["token"])
            mercure_flow(server, base)
            owner, message_id = one_store(server, base, pro_bearer)
            bad_input(server, base, owner, message_id)
            documented(server)
    check.context = ""
    with postern(env={"POSTERN_RATE_LIMITS": "on"}) as server:
        rate_limited(server + "/mailtm")
    check.finish("test_mailtm_clients")


if __name__ == "__main__":
    main()
