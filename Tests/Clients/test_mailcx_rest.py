"""mail.cx's REST API (issue 72) against a real `postern serve --profile test` (implicit mailboxes on
`mailcx.localhost`, the long poll held 3 s here instead of 25): multitempmail's mail.cx provider, unchanged, through
its own interface (create, wait, read, attachment, delete, clear); the long poll by hand (200 once mail has arrived,
204 when the hold ends, `since` listing only newer mail, `count` and `limit`); `x-api-token` scoping reads; an address
outside the surface's domains, a 10 kB address and a bad cursor refused; a Mail.td account's message unreadable by
id but by its Pro user's token, the same message mail.cx's `/api/ws` pushed for the account; `/api/ws` on an implicit
mailbox (websockets), by its address; and, on a second server whose retention is 2 s, mail past the retention gone. Each on SQLite and on PostgreSQL
(`BACKENDS`).

Mail goes in over SMTP. The hold is short so that a 204 comes soon; a poll that must see a delivery polls again after
each 204 (a delivery on a busy machine may take longer than one hold), and what is checked is what came."""

import asyncio
import concurrent.futures
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, http, postern
from postern_testkit.mailtd import create_account, pro_login, pro_token
from postern_testkit.postgres import BACKENDS
from postern_testkit.tempmail import deliver, install_clients

install_clients()
sys.path.insert(0, os.path.join(ROOT, ".build", "client-sdks", "websockets"))  # scripts/client-tests installs it
import websocket  # noqa: E402  websocket-client
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402
from multitempmail import TempMailClient  # noqa: E402
from multitempmail.http import HTTPClient  # noqa: E402
from multitempmail.providers.mailcx import MailCxProvider  # noqa: E402

check = Checks()
PRO = ("pro@example.com", "pro-password-1")
OTHER_PRO = ("other-pro@example.com", "pro-password-2")
DOMAIN = "mailcx.localhost"
# How long a poll loop may go on: far past what a busy machine needs; what is checked is what came.
WAIT_SECONDS = 120


def poll_until_mail(base, address, query=""):
    """GETs the inbox until an answer other than 204; returns (status, body, how many 204s came first)."""
    holds = 0
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        status, _, body = http(base, "GET", f"/inbox/{address}{query}")
        if status != 204:
            return status, body, holds
        holds += 1
    return 204, None, holds


def multitempmail_flow(server, base):
    client = TempMailClient(MailCxProvider(http=HTTPClient(base_url=base, retries=0)))
    box = client.create()
    check(box.address.endswith("@" + DOMAIN), f"multitempmail mail.cx: create ({box.address})")
    deliver(server, box.address, "multi mail.cx", text="multi body", attachment=("report.txt", b"attached bytes"))
    got = client.wait_for_message(box, timeout=WAIT_SECONDS)
    check(got.subject == "multi mail.cx" and got.sender == "app@example.com", "multitempmail mail.cx: wait_for_message")
    full = client.message(box, got.id)
    check(full.body_text.strip() == "multi body" and full.attachments[0].filename == "report.txt",
          "multitempmail mail.cx: message with its attachment")
    check(client.download(box, full, 0) == b"attached bytes", "multitempmail mail.cx: download the attachment")
    client.delete(box, got.id)
    status, _, _ = http(base, "GET", f"/email/{got.id}")
    check(status == 404, f"multitempmail mail.cx: delete the message (then 404: {status})")
    deliver(server, box.address, "to be cleared")
    poll_until_mail(base, box.address)
    client.delete_mailbox(box)
    status, _, body = http(base, "GET", f"/inbox/{box.address}")
    check(status == 204, f"multitempmail mail.cx: delete_mailbox clears the inbox (then a hold and 204: {status})")


def long_poll(server, base):
    address = "long-poll@" + DOMAIN
    status, _, _ = http(base, "GET", f"/inbox/{address}")
    check(status == 204, f"an empty inbox: held, then 204 ({status})")
    deliver(server, address, "first")
    status, body, _ = poll_until_mail(base, address)
    check(status == 200 and [e["subject"] for e in body["emails"]] == ["first"] and body["next_since"],
          f"mail arrived: 200 with it and next_since ({status})")
    cursor = body["next_since"]
    status, _, _ = http(base, "GET", f"/inbox/{address}?since={cursor}")
    check(status == 204, f"since the cursor, nothing new: held, then 204 ({status})")
    deliver(server, address, "second")
    status, body, _ = poll_until_mail(base, address, f"?since={cursor}")
    check(status == 200 and [e["subject"] for e in body["emails"]] == ["second"],
          f"since the cursor: only the newer mail ({[e['subject'] for e in (body or {}).get('emails', [])]})")
    status, _, body = http(base, "GET", f"/inbox/{address}")
    check(status == 200 and [e["subject"] for e in body["emails"]] == ["second", "first"],
          "no cursor: the whole inbox, newest first")
    status, _, body = http(base, "GET", f"/inbox/{address}?limit=1")
    check(status == 200 and [e["subject"] for e in body["emails"]] == ["second"], "limit=1: the newest only")
    status, _, _ = http(base, "GET", f"/inbox/{address}?count=3")
    check(status == 204, f"count=3 with two there: held, then 204 ({status})")
    email = body["emails"][0]
    check(set(email) >= {"id", "from_email", "subject", "preview_text", "created_at", "size"},
          f"an inbox email's members ({sorted(email)})")
    status, _, body = http(base, "DELETE", f"/inbox/{address}")
    check(status == 200 and body == {"deleted": 2}, f"DELETE /inbox: 200 deleted 2 ({body})")


def refusals(server, base):
    for name, path, status, code in [
        ("an address outside the surface's domains", "/inbox/someone@mail.localhost", 403, "domain_not_allowed"),
        ("a foreign domain", "/inbox/someone@example.com", 403, "domain_not_allowed"),
        ("a malformed address", "/inbox/not-an-address", 400, "invalid_address"),
        ("a bad cursor", f"/inbox/x@{DOMAIN}?since=abc", 400, "invalid_since"),
        ("count 0", f"/inbox/x@{DOMAIN}?count=0", 400, "invalid_count"),
        ("limit 51", f"/inbox/x@{DOMAIN}?limit=51", 400, "invalid_limit"),
        ("an unknown email", "/email/00000000-0000-0000-0000-000000000000", 404, "email_not_found"),
        ("an attachment index that is no number", "/email/x/attachments/a", 400, "invalid_index"),
        ("an unknown path", "/nowhere", 404, "not_found"),
    ]:
        got, _, body = http(base, "GET", path)
        check(got == status and body == {"error": code}, f"{name} → {status} {code} ({got} {body})")
    got, _, body = http(base, "POST", "/config", {})
    check(got == 405 and body == {"error": "method_not_allowed"}, f"POST /config → 405 ({got})")
    got, _, body = http(base, "GET", "/inbox/" + "a" * 10240 + "@" + DOMAIN)
    check(got in (400, 414) and isinstance(body, dict) and set(body) == {"error"} and "aaaa" not in str(body),
          f"a 10 kB address → {got} {body}, not echoed")
    got, _, body = http(base, "GET", "/config", headers={"x-api-token": "tm_pro_not-a-token"})
    check(got == 401 and body == {"error": "invalid_token"}, f"a bad x-api-token → 401 invalid_token ({got})")


def held_polls(base):
    """One client holds at most 10 long polls at once: an eleventh, while ten are held, is 429 rate_limit_exceeded.
    Twelve start together; should the machine be too slow for them to overlap, the burst is tried again."""
    address = "held@" + DOMAIN
    for _ in range(10):
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(lambda _: http(base, "GET", f"/inbox/{address}"), range(12)))
        refused = [body for status, _, body in answers if status == 429]
        if refused:
            break
    check(refused and all(body == {"error": "rate_limit_exceeded"} for body in refused)
          and all(status in (204, 429) for status, _, _ in answers),
          f"twelve polls at once from one client: the ones past ten → 429 ({[a[0] for a in answers]})")


def token_scope(server, base):
    """A Mail.td account's mail is nobody's through mail.cx but its Pro user's, by that user's API token."""
    jwt = pro_login(server, *PRO)
    token = pro_token(server, jwt, "mail.cx")["token"]
    other = pro_token(server, pro_login(server, *OTHER_PRO), "other")["token"]
    account = create_account(server, "pro-box@mail.localhost", password="secret-password-1", bearer=jwt)
    # mail.cx's /api/ws on the same account, by its own token: the socket and the REST API see one store.
    socket = websocket.create_connection("ws" + server[len("http"):] + "/api/ws", timeout=WAIT_SECONDS)
    socket.send(json.dumps({"type": "auth", "token": account["token"]}))
    check(json.loads(socket.recv()) == {"type": "auth_ok"}, "mail.cx's /api/ws: the account's token, auth_ok")
    deliver(server, account["address"], "pro mail")
    pushed = json.loads(socket.recv())
    socket.close()
    for name, headers, status in [("no token", {}, 403), ("another Pro user's token", {"x-api-token": other}, 403)]:
        got, _, body = http(base, "GET", f"/inbox/{account['address']}", headers=headers)
        check(got == status and body == {"error": "domain_not_allowed"}, f"a Mail.td account's inbox, {name} → {got}")
    holds = 0
    while holds < WAIT_SECONDS:
        got, _, body = http(base, "GET", f"/inbox/{account['address']}", headers={"x-api-token": token})
        if got != 204:
            break
        holds += 1
    check(got == 200 and body["emails"][0]["subject"] == "pro mail", f"… its Pro user's token reads it ({got})")
    message_id = body["emails"][0]["id"]
    check(pushed.get("type") == "new_email" and pushed.get("id") == message_id,
          f"… the one /api/ws pushed, by the same id ({pushed.get('type')})")
    got, _, body = http(base, "GET", f"/email/{message_id}")
    check(got == 404 and body == {"error": "email_not_found"}, f"its email by id without the token → 404 ({got})")
    got, _, body = http(base, "GET", f"/email/{message_id}", headers={"x-api-token": token})
    check(got == 200 and body["subject"] == "pro mail", f"… with the token → 200 ({got})")
    got, _, _ = http(base, "DELETE", f"/email/{message_id}", headers={"x-api-token": other})
    check(got == 404, f"… deleting it with another Pro user's token → 404, kept ({got})")


async def implicit_socket(server, base):
    """mail.cx's /api/ws on an implicit mailbox (websockets, asyncio): `{"type":"auth","address":...}` with no token
    follows any address of the surface's domains; the new_email it pushes is the message the REST inbox lists, by the
    same id, with a null account_id (an implicit mailbox has no account). An address outside the domains and a
    malformed one are refused with the REST API's codes, then closed with 1008."""
    address = "socket-box@" + DOMAIN
    url = "ws" + server[len("http"):] + "/api/ws"
    async with connect(url) as socket_:
        await socket_.send(json.dumps({"type": "auth", "address": address}))
        check(json.loads(await socket_.recv()) == {"type": "auth_ok"}, "/api/ws, an implicit mailbox: auth_ok")
        deliver(server, address, "over the socket")
        event = json.loads(await asyncio.wait_for(socket_.recv(), WAIT_SECONDS))
    check(event["type"] == "new_email" and event["subject"] == "over the socket" and event["address"] == address
          and event["account_id"] is None, f"/api/ws, an implicit mailbox: new_email, account_id null ({event})")
    status, body, _ = poll_until_mail(base, address)
    check(status == 200 and [e["id"] for e in body["emails"]] == [event["id"]],
          "… the same message the REST inbox lists, by the same id")
    for name, text, code in [("an address outside the surface's domains", "someone@mail.localhost",
                              "domain_not_allowed"),
                             ("a malformed address", "not an address", "invalid_address")]:
        async with connect(url) as socket_:
            await socket_.send(json.dumps({"type": "auth", "address": text}))
            got = json.loads(await socket_.recv())
            try:
                await asyncio.wait_for(socket_.recv(), WAIT_SECONDS)
                closed = None
            except ConnectionClosed as error:
                closed = error.rcvd.code if error.rcvd else None
        check(got == {"error": code} and closed == 1008, f"/api/ws: {name} → {code}, closed 1008 ({got}, {closed})")


def documented(server):
    """/openapi.json describes every mail.cx route the server serves (the schemathesis stage tests what it describes)."""
    _, _, spec = http(server, "GET", "/openapi.json")
    served = [("get", "/config"), ("get", "/inbox/{address}"), ("delete", "/inbox/{address}"), ("get", "/email/{id}"),
              ("delete", "/email/{id}"), ("get", "/email/{id}/raw"), ("get", "/email/{id}/attachments/{index}")]
    missing = [f"{m.upper()} {p}" for m, p in served if m not in spec["paths"].get("/mailcx/v1" + p, {})]
    check(not missing, f"/openapi.json describes every mail.cx route (missing: {missing})")


def retention(server, base):
    address = "short-lived@" + DOMAIN
    deliver(server, address, "soon gone")
    status, body, _ = poll_until_mail(base, address)
    check(status == 200, f"retention 2 s: the mail is there at first ({status})")
    message_id = body["emails"][0]["id"]
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline and http(base, "GET", f"/email/{message_id}")[0] == 200:
        time.sleep(0.5)
    status, _, _ = http(base, "GET", f"/email/{message_id}")
    check(status == 404, f"retention 2 s: the mail past it is gone ({status})")


def main():
    env = {"POSTERN_MAILBOX_POW_REQUIRED": "off", "POSTERN_MAILCX_HOLD_SECONDS": "3"}
    for backend in BACKENDS:
        check.context = f"[{backend}] "
        with postern(env=env, pro_users=[PRO, OTHER_PRO], backend=backend) as server:
            base = server + "/mailcx/v1"
            status, _, config = http(base, "GET", "/config")
            check(status == 200 and config["system_domains"] == [{"domain": DOMAIN, "default": True}],
                  f"GET /config: the test profile's domain ({config})")
            multitempmail_flow(server, base)
            long_poll(server, base)
            refusals(server, base)
            held_polls(base)
            token_scope(server, base)
            asyncio.run(implicit_socket(server, base))
            documented(server)
        retention_env = {"POSTERN_MAILCX_HOLD_SECONDS": "1", "POSTERN_MAILCX_RETENTION_SECONDS": "2"}
        with postern(env=retention_env, backend=backend) as server:
            retention(server, server + "/mailcx/v1")
    check.finish("test_mailcx_rest")


if __name__ == "__main__":
    main()
