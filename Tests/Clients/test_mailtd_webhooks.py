"""Mail.td Pro webhooks through Mail.td's Python SDK, unmodified (1.3.2 and 2.0.0: every webhook method of each),
against a real Postern and a local receiver that checks every signature.

The receiver answers the first delivery 500: the retry (after POSTERN_WEBHOOK_RETRY_SECONDS, 1 s here) carries the
same event id and a valid signature, and the delivery log shows both attempts. Rotation changes the signing secret;
deletion stops deliveries. Then `kill -9` while a delivery is in flight (the receiver holds it unanswered): the
restarted server delivers the event again once the dead instance's lease runs out, so no accepted event is lost.
Loopback http targets need POSTERN_OUTBOUND_ALLOW_PRIVATE=true, which the servers here run with. Exit status 0 when
every check passed.
"""

import os
import shutil
import signal
import smtplib
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from test_mailtd_sdks import SDK, SDKS, install
from webhook_receiver import Receiver

check = Checks()
ENV = {"POSTERN_OUTBOUND_ALLOW_PRIVATE": "true", "POSTERN_WEBHOOK_RETRY_SECONDS": "1,1"}
PRO = ("hooks@example.com", "pro-password")


def send(smtp_port, to, subject):
    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=120) as smtp:
        smtp.sendmail("sender@example.net", [to], f"From: Sender <sender@example.net>\r\nTo: {to}\r\n"
                      f"Subject: {subject}\r\n\r\nHello from {subject}.\r\n")


def headers(request):
    return {k.lower(): v for k, v in request["headers"].items()}


def pro_token(base):
    status, _, login = http(base, "POST", "/api/user/login", {"email": PRO[0], "password": PRO[1]})
    check(status == 200, "Pro login")
    return login["token"]


def flow(base, v1, v2, receiver):
    token = pro_token(base)
    address = "box@mail.localhost"
    check(v1("create", token=token, address=address, password="box-secret").get("address") == address,
          "a Pro account to watch")
    for url, code in (("https://169.254.169.254/hook", "invalid_url"), ("ftp://example.com/", "invalid_url")):
        refused = v1("webhook_create", token=token, url=url)
        check(refused.get("api_error") == {"status": 400, "code": code}, f"v1: webhooks.create {url} is 400 {code}")
    bad_events = v2("webhook_create", token=token, url=receiver.url("/x"), events=["email.sent"])
    check(bad_events.get("api_error") == {"status": 400, "code": "invalid_events"}, "v2: unknown event is 400")

    # v1 creates; a 500 is retried with the same event id, both attempts signed and logged.
    receiver.script("/one", [500])
    hook = v1("webhook_create", token=token, url=receiver.url("/one"))
    secret = hook.get("secret") or ""
    check(secret.startswith("whsec_") and hook.get("events") == ["email.received"] and hook.get("status") == "active",
          "v1: webhooks.create answers the webhook with its whsec_ secret")
    listed = v1("webhook_list", token=token)
    check([w["id"] for w in listed] == [hook["id"]] and listed[0]["secret"] is None, "v1: webhooks.list, no secret")
    second = v2("webhook_create", token=token, url=receiver.url("/other"))
    check(second.get("api_error") == {"status": 403, "code": "webhook_limit_reached"}, "v2: a second webhook is 403")
    send(base.smtp_port, address, "first")
    first, retry = receiver.wait_for(lambda r: len([x for x in r if x["path"] == "/one"]) >= 2, what="the retry")[:2]
    check(first["status"] == 500 and retry["status"] == 200, "the receiver saw a 500, then the retry")
    check(Receiver.verify(first, secret) and Receiver.verify(retry, secret), "both attempts carry a valid signature")
    event_id = headers(first)["x-webhook-id"]
    check(event_id.startswith("evt_") and headers(retry)["x-webhook-id"] == event_id, "the retry has the same id")
    event = Receiver.event(retry)
    check(event["id"] == event_id and event["type"] == "email.received" and event["data"]["address"] == address
          and event["data"]["subject"] == "first" and event["data"]["sender"] == "sender@example.net",
          "the payload names the event, the address and the message")
    for sdk in (v1, v2):
        listed = sdk("pro_messages", token=token, id=address)
        check(event["data"]["email_id"] in [m["id"] for m in listed.get("messages", [])],
              f"{sdk.name}: user.list_account_messages lists the message the event names")
    page = v1("pro_accounts_page", token=token)
    check([a["address"] for a in page.get("accounts", [])] == [address] and not page.get("next_cursor"),
          "v1: user.list_accounts_page")
    deliveries = []
    for _ in range(200):  # the second attempt is logged just after its answer; a bounded look, not a pause
        deliveries = v1("webhook_deliveries", token=token, id=hook["id"])
        if len(deliveries) >= 2:
            break
    check([(d["attempt"], d["status_code"], d["error"]) for d in deliveries] == [(2, 200, None), (1, 500, "HTTP 500")]
          and all(d["event_id"] == event_id for d in deliveries), "v1: webhooks.list_deliveries shows both attempts")
    check(v2("webhook_list", token=token)[0]["failure_count"] == 0, "v2: a 2xx resets failure_count")

    # v2 rotates: the next event is signed with the new secret only.
    rotated = v2("webhook_rotate", token=token, id=hook["id"])
    new_secret = rotated.get("secret") or ""
    check(rotated.get("id") == hook["id"] and new_secret.startswith("whsec_") and new_secret != secret,
          "v2: webhooks.rotate_secret gives a new secret")
    check(v1("webhook_rotate", token=token, id="00000000-0000-4000-8000-000000000000").get("api_error", {})
          .get("status") == 404, "v1: rotating an unknown webhook is 404")
    send(base.smtp_port, address, "second")
    third = receiver.wait_for(lambda r: len([x for x in r if x["path"] == "/one"]) >= 3, what="the third POST")
    latest = [x for x in third if x["path"] == "/one"][2]
    check(Receiver.verify(latest, new_secret) and not Receiver.verify(latest, secret),
          "after rotation the signature uses the new secret, not the old")
    check(len(v2("webhook_deliveries", token=token, id=hook["id"])) >= 2, "v2: webhooks.list_deliveries")

    # v2 deletes: mail sent then queues nothing; a new webhook sees only the mail after it.
    check(v2("webhook_delete", token=token, id=hook["id"]) == "deleted", "v2: webhooks.delete")
    send(base.smtp_port, address, "while none")
    hook2 = v2("webhook_create", token=token, url=receiver.url("/two"), events=[])
    check(hook2.get("events") == ["email.received"] and (hook2.get("secret") or "").startswith("whsec_"),
          "v2: webhooks.create with events [] subscribes to email.received")
    send(base.smtp_port, address, "after")
    receiver.wait_for(lambda r: any(x["path"] == "/two" for x in r), what="the new webhook's POST")
    subjects = [Receiver.event(x)["data"]["subject"] for x in receiver.received]
    check("while none" not in subjects and len(receiver.on("/one")) == 3,
          "nothing was delivered for the mail sent while no webhook existed, nor to the deleted one")
    check(Receiver.verify(receiver.on("/two")[0], hook2["secret"]), "the new webhook's signature verifies")
    check(v1("webhook_delete", token=token, id=hook2["id"]) == "deleted", "v1: webhooks.delete")
    check(v1("webhook_deliveries", token=token, id=hook2["id"]).get("api_error", {}).get("status") == 404,
          "v1: the log of a deleted webhook is 404")
    check(v2("webhook_list", token=token) == [], "v2: webhooks.list is empty again")


def kill_nine(v1, receiver):
    """A delivery in flight when the server dies by SIGKILL is delivered again after the restart."""
    data = tempfile.mkdtemp(prefix="postern-webhook-kill-")
    try:
        receiver.script("/held", [None])
        with postern(ENV, pro_users=[PRO], data=data) as base:
            v1.base = base
            token = pro_token(base)
            v1("create", token=token, address="kill@mail.localhost", password="box-secret")
            hook = v1("webhook_create", token=token, url=receiver.url("/held"))
            send(base.smtp_port, "kill@mail.localhost", "survives")
            held = receiver.wait_for(lambda r: any(x["path"] == "/held" for x in r), what="the held delivery")
            event_id = headers([x for x in held if x["path"] == "/held"][0])["x-webhook-id"]
            base.process.send_signal(signal.SIGKILL)
            base.process.wait(timeout=30)
        receiver.release()
        with postern(ENV, data=data) as base:
            v1.base = base
            again = receiver.wait_for(lambda r: len([x for x in r if x["path"] == "/held"]) >= 2, timeout=120,
                                      what="the redelivery after kill -9")
            redelivered = [x for x in again if x["path"] == "/held"][1]
            check(headers(redelivered)["x-webhook-id"] == event_id and Receiver.verify(redelivered, hook["secret"]),
                  "kill -9 during delivery: the restarted server delivers the same event, signed")
            token = pro_token(base)
            logged = []
            for _ in range(200):
                logged = v1("webhook_deliveries", token=token, id=hook["id"])
                if logged:
                    break
            check([(d["event_id"], d["status_code"]) for d in logged] == [(event_id, 200)],
                  "the delivery log records the completed attempt")
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main():
    receiver = Receiver()
    try:
        with postern(ENV, pro_users=[PRO]) as base:
            v1, v2 = (SDK(name, install(SDKS[name]), base) for name in ("v1", "v2"))
            flow(base, v1, v2, receiver)
        kill_nine(v1, receiver)
    finally:
        receiver.stop()
    check.finish("mailtd webhooks")


if __name__ == "__main__":
    main()
