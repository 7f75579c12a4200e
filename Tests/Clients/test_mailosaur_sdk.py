"""Mailosaur's own Python SDK (`mailosaur` 8.1.1 from PyPI, unchanged) against a real `postern serve --profile test`
(issue 85 item 2): its base URL is `<server>/mailosaur/`, its API key the operator's token (every server) or a Pro
user's API token (that user's sandbox). Mail goes in over SMTP (smtplib) to addresses the SDK makes; every answer is
read by the SDK's own models: servers, list, search (each criterion, ALL and ANY), get by id with the codes and links
found at delivery, `messages.get` (the SDK's wait) woken by a delivery sent after it started, its timeout, delete,
delete all, the files, and Mailosaur's errors. Then `POST api/messages/await`, the long poll that rides the change
stream, woken by a delivery and 204 when nothing came."""

import hashlib
import os
import smtplib
import ssl
import sys
import threading
import time
from datetime import datetime, timedelta
from email.message import EmailMessage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, free_port, install_packages, postern
from postern_testkit.mailtd import pro_login, pro_token

check = Checks()
VERSION = "8.1.1"
TOKEN = "operator-token-" + "0123456789abcdef" * 2
CATCH_ALL = "catch-all@postern.invalid"
LINK = "https://app.example/verify?token=" + "9f8e7d6c" * 6


def server_id(address):
    """The id docs/codes.md gives an address's server: the first 40 bits of its SHA-256, lower-case base32hex."""
    alphabet = "0123456789abcdefghijklmnopqrstuv"
    bits = int.from_bytes(hashlib.sha256(address.encode()).digest()[:5], "big")
    return "".join(alphabet[(bits >> (35 - 5 * i)) & 31] for i in range(8))


def send(port, to, subject, text=None, html=None, attachment=None, sender="App <app@example.com>", password=None):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message.set_content(text or "Hello.")
    if html:
        message.add_alternative(html, subtype="html")
    if attachment:
        message.add_attachment(attachment, maintype="application", subtype="octet-stream", filename="blob.bin")
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        if password:
            client.starttls(context=ssl._create_unverified_context())
            client.login("any", password)
        client.send_message(message)


def criteria(**fields):
    from mailosaur.models import SearchCriteria
    found = SearchCriteria()
    for name, value in fields.items():
        setattr(found, name, value)
    return found


def raised(call):
    """The MailosaurException `call` raises, or None."""
    from mailosaur.models import MailosaurException
    try:
        call()
    except MailosaurException as error:
        return error
    return None


def servers_and_messages(server, client):
    """Servers, list, search and get, each answer read by the SDK's models."""
    catch_all = server_id(CATCH_ALL)
    listed = client.servers.list().items
    check(listed[0]["id"] == catch_all and listed[0]["name"] == "Catch-all",
          f"servers.list: the catch-all first, its id derived from its address ({listed[0]})")
    to = client.servers.generate_email_address(catch_all)
    check(to.endswith(f"@{catch_all}.mailosaur.test"), f"generate_email_address: {to}")
    send(server.smtp_port, to, "Your verification code",
         text=f"Your verification code is 482913.\nOr confirm: {LINK}\n",
         html=f'<p>Your verification code is <b>482913</b>.</p><p><a href="{LINK}">Confirm your address</a></p>',
         attachment=b"\x00\x01payload")
    send(server.smtp_port, "ann@example.org", "Weekly news", text="Nothing to confirm. Order 2025-0042.",
         sender="News <news@example.net>")
    summaries = client.messages.list(catch_all).items
    check([m.subject for m in summaries] == ["Weekly news", "Your verification code"],
          "messages.list: MessageSummary items, newest first")
    first = summaries[1]
    check(first.server == catch_all and first.sender[0].email == "app@example.com" and first.sender[0].name == "App"
          and first.to[0].email == to and first.attachments == 1 and first.summary,
          "a summary's server, from (name and email), to, attachment count and text")
    check(abs((datetime.now().astimezone() - first.received).total_seconds()) < 120, "received parsed as a time")
    check(client.servers.get(catch_all).messages == 2, "servers.get: its message count")
    by = lambda **fields: [m.subject for m in client.messages.search(catch_all, criteria(**fields)).items]
    check(by(sent_to=to) == ["Your verification code"], "search sent_to")
    check(by(sent_from="news@example.net") == ["Weekly news"], "search sent_from")
    check(by(subject="verification") == ["Your verification code"], "search subject")
    check(by(body="Order 2025") == ["Weekly news"], "search body")
    check(by(subject="verification", body="Order 2025", match="ALL") == [], "search ALL: both must match")
    check(by(subject="verification", body="Order 2025", match="ANY") == ["Weekly news", "Your verification code"],
          "search ANY: either")
    check(client.messages.search(catch_all, criteria(subject="verification"), page=1, items_per_page=1).items == [],
          "search paged: page 1 of 1 per page is empty")
    received_after = datetime.now() + timedelta(hours=1)
    check(client.messages.list(catch_all, received_after=received_after).items == [], "list received_after")
    message = client.messages.get_by_id(first.id)
    check(message.type == "Email" and message.subject == "Your verification code" and message.server == catch_all,
          "get_by_id: a Message")
    check([c.value for c in message.html.codes] == ["482913"] and [c.value for c in message.text.codes] == ["482913"],
          "html.codes and text.codes: the code found at delivery")
    check([(l.href, l.text) for l in message.html.links] == [(LINK, "Confirm your address")],
          "html.links: the href with its visible text")
    check([(l.href, l.text) for l in message.text.links] == [(LINK, LINK)], "text.links: the URL as its text")
    check("482913" in message.text.body and "<b>482913</b>" in message.html.body, "both bodies")
    check(message.metadata.mail_from == "app@example.com" and [r.email.lower() for r in message.metadata.rcpt_to] == [to.lower()]
          and any(h.field == "Subject" and h.value == "Your verification code" for h in message.metadata.headers),
          "metadata: MAIL FROM, RCPT TO and the header fields")
    attachment = message.attachments[0]
    check(attachment.file_name == "blob.bin" and attachment.length == 9
          and attachment.content_type == "application/octet-stream", "attachments: name, length and type")
    check(client.files.get_attachment(attachment.id).content == b"\x00\x01payload", "files.get_attachment")
    check(b"Subject: Your verification code" in client.files.get_email(first.id).content, "files.get_email")
    return catch_all


def waits(server, client, catch_all):
    """`messages.get`: at once for a stored match; woken by a delivery sent after it started; its timeout."""
    started = time.monotonic()
    found = client.messages.get(catch_all, criteria(subject="verification"))
    check(found.subject == "Your verification code",
          f"messages.get: a stored match ({time.monotonic() - started:.2f} s)")
    result = {}

    def wait():
        started = time.monotonic()
        result["message"] = client.messages.get(catch_all, criteria(subject="Sign in to App"), timeout=20000)
        result["at"] = time.monotonic()
        result["took"] = result["at"] - started

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(1.0)
    send(server.smtp_port, "new-user@example.org", "Sign in to App", text="Your sign-in code: 771204")
    sent = time.monotonic()
    waiter.join(30)
    message = result.get("message")
    check(message is not None and message.subject == "Sign in to App"
          and [c.value for c in message.text.codes] == ["771204"],
          f"messages.get woken by the SMTP delivery after it started, its code read ({result.get('took', 0):.2f} s, "
          f"{(result.get('at', sent) - sent) * 1000:.0f} ms after the 250: the SDK asks again every 100 ms)")
    error = raised(lambda: client.messages.get(catch_all, criteria(subject="never sent"), timeout=1500))
    check(error is not None and error.error_type == "search_timeout", "messages.get: search_timeout after its timeout")
    error = raised(lambda: client.messages.search(catch_all, criteria()))
    check(error is not None and error.http_status_code == 400 and error.error_type == "invalid_request",
          f"search without criteria: 400 ({error and error.message!r})")
    error = raised(lambda: client.messages.get("short", criteria(subject="x")))
    check(error is not None and error.error_type == "invalid_request", "messages.get refuses a server id of 5")
    error = raised(lambda: client.messages.list("zzzzzzzz"))
    check(error is not None and error.http_status_code == 404, "an unknown server: 404")


def await_route(server, catch_all):
    """POST api/messages/await: the long poll on the change stream, woken by a delivery; 204 when nothing came."""
    import requests
    url = f"{server}/mailosaur/api/messages/await"
    result = {}

    def wait():
        result["response"] = requests.post(url, params={"server": catch_all, "timeout": 20000},
                                           json={"subject": "Reset your password"}, auth=(TOKEN, ""), timeout=30)
        result["at"] = time.monotonic()

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.5)
    send(server.smtp_port, "ann@example.org", "Reset your password", text=f"Reset: {LINK}&reset=1")
    sent = time.monotonic()
    waiter.join(30)
    response = result.get("response")
    check(response is not None and response.status_code == 200
          and response.json()["subject"] == "Reset your password", "await: the message, woken by the delivery")
    check(response is not None and result["at"] - sent < 1.0,
          f"await answered {(result.get('at', sent) - sent) * 1000:.0f} ms after the 250")
    timed_out = requests.post(url, params={"server": catch_all, "timeout": 300}, json={"subject": "never"},
                              auth=(TOKEN, ""), timeout=30)
    check(timed_out.status_code == 204 and timed_out.content == b"", "await: 204 once its timeout has passed")


def deletes(client, catch_all):
    first = client.messages.list(catch_all).items[0]
    client.messages.delete(first.id)
    error = raised(lambda: client.messages.get_by_id(first.id))
    check(error is not None and error.message == "Not found, check input parameters.", "delete, then 404")
    client.messages.delete_all(catch_all)
    check(client.messages.list(catch_all).items == [], "delete_all: the server is empty")


def pro_sandbox(server, base_url):
    """A Pro user's API token is a key that sees that user's sandbox only."""
    from mailosaur import MailosaurClient
    ada = pro_token(server, pro_login(server, "ada@example.com", "ada-password"), "mailosaur")["token"]
    client = MailosaurClient(ada, base_url)
    mine = client.servers.list().items
    check(len(mine) == 1 and mine[0]["id"] != server_id(CATCH_ALL), f"a Pro key: one server, its sandbox ({mine})")
    send(server.sandbox_port, "someone@example.net", "Ada's capture", password=ada)
    found = client.messages.get(mine[0]["id"], criteria(subject="capture"), timeout=10000)
    check(found.subject == "Ada's capture", "its sandbox's mail, through messages.get")
    error = raised(lambda: client.messages.list(server_id(CATCH_ALL)))
    check(error is not None and error.http_status_code == 404, "the catch-all is no server of a Pro key")
    error = raised(lambda: MailosaurClient("wrong-key", base_url).servers.list())
    check(error is not None and error.message == "Authentication failed, check your API key.", "a wrong key: 401")


def main():
    install_packages("mailosaur-" + VERSION, ["mailosaur==" + VERSION], ["mailosaur", "dateutil", "tzlocal"])
    os.environ["MAILOSAUR_SMTP_HOST"] = "mailosaur.test"  # generate_email_address's domain: the catch-all takes it
    from mailosaur import MailosaurClient
    sandbox_port = free_port()
    env = {"POSTERN_OPERATOR_TOKEN": TOKEN, "POSTERN_SMTP_ACCEPT": "any",
           "POSTERN_SANDBOX_SMTP_PORT": str(sandbox_port)}
    with postern(env=env, pro_users=[("ada@example.com", "ada-password")]) as server:
        server.sandbox_port = sandbox_port
        base_url = server + "/mailosaur/"
        client = MailosaurClient(TOKEN, base_url)
        catch_all = servers_and_messages(server, client)
        waits(server, client, catch_all)
        await_route(server, catch_all)
        deletes(client, catch_all)
        pro_sandbox(server, base_url)
    check.finish("test_mailosaur_sdk")


if __name__ == "__main__":
    main()
