"""Mailpit's API v1 on Postern (issue 71): the 2023 `mailpit-api-client` from PyPI, unchanged, its base URL pointed at
`/mailpit` with the operator token as HTTP Basic's password in the URL (list, get, headers, attachment, read status,
delete), then `requests` calls for the rest (search, tags, send, info, webui, view, raw, the off features, who may
look, a Pro user's sandbox, the chaos triggers), each asserting Mailpit's documented shape. Mail goes in over SMTP
(smtplib), which also sees the chaos triggers' refusals."""

import os
import smtplib
import sys
import threading
import time
import urllib.parse
from email.message import EmailMessage
from email.utils import make_msgid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, free_port, http, install_packages, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit.mailtd import pro_login, pro_token

check = Checks()
TOKEN = "operator-token-" + "0123456789abcdef" * 2
PAYLOAD = b"%PDF-1.4 report\n"
CLIENT = "mailpit-api-client-1.0.0"


def send(server, to, subject, text="hello", html=None, attachment=None, tags=None):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "App <app@example.com>", to, subject
    message["Date"] = "Mon, 15 Jun 2025 15:06:40 +0200"
    message["Delivered-To"] = to
    message["Message-ID"] = make_msgid(domain="example.com")  # the 2023 client's Headers model requires one
    if tags:
        message["X-Tags"] = tags
    message.set_content(text)
    if html:
        message.add_alternative(html, subtype="html")
    if attachment:
        message.add_attachment(attachment, maintype="application", subtype="pdf", filename="report.pdf")
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as client:
        client.send_message(message)


def client_library(server):
    """The 2023 client, unchanged: every call it makes, against Postern."""
    from mailpit.client.api import API
    parts = urllib.parse.urlsplit(server)
    api = API(f"{parts.scheme}://any:{TOKEN}@{parts.netloc}/mailpit", timeout=30)
    send(server, "ann@example.org", "Your report", text="See attached.", attachment=PAYLOAD)
    send(server, "bo@example.org", "Second")
    listed = api.get_messages()
    check(listed.total == 2 and listed.unread == 2 and listed.count == 2, "get_messages: total, unread, count")
    first = next(m for m in listed.messages if m.subject == "Your report")
    check(first.read is False and first.attachments == 1, "a summary: Read false, one attachment")
    check(first.to[0].address == "ann@example.org", "a summary's To")
    message = api.get_message(first.id)
    check(message.subject == "Your report" and message.text.strip() == "See attached.", "get_message: subject, text")
    check(message.read is True, "opening a message marks it read, as Mailpit does")
    check(len(message.attachments) == 1 and message.attachments[0].file_name == "report.pdf", "the attachment")
    headers = api.get_message_headers(first.id)
    check(headers.delivered_to == ["ann@example.org"], "headers: Delivered-To as Go's canonical name")
    data = api.get_message_attachment(first.id, message.attachments[0].part_id)
    check(data.encode() == PAYLOAD, "get_message_attachment: the decoded bytes")
    api.put_messages([first.id], "Read", False)
    again = [m for m in api.get_messages().messages if m.id == first.id][0]
    check(again.read is False, "put_messages(Read=False) as a form: unread again")
    api.delete_messages([first.id])
    left = api.get_messages()
    check(left.total == 1 and [m.subject for m in left.messages] == ["Second"], "delete_messages([id]): that one")
    api.delete_messages([])
    check(api.get_messages().total == 0, "delete_messages([]): every message, as the client documents")


def bare_message(server):
    """Issue 83 item 7: a message with no Date, Message-ID or Delivered-To, sent to two recipients of which its To
    names one. The 2023 client reads its headers (it raised KeyError on the missing fields before), with the Message-Id
    and Return-Path Mailpit writes on arrival; `bcc:` finds the unnamed recipient, as Mailpit files it; and the page at
    /mailpit/ points to the API, the client's base URL and `postern web link --all`, with no credential."""
    import requests
    from mailpit.client.api import API
    parts = urllib.parse.urlsplit(server)
    api = API(f"{parts.scheme}://any:{TOKEN}@{parts.netloc}/mailpit", timeout=30)
    api.delete_messages([])
    raw = b"From: app@example.com\r\nTo: ann@example.org\r\nSubject: bare\r\n\r\nno date, no id\r\n"
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as client:
        client.sendmail("app@example.com", ["ann@example.org", "hidden@example.org"], raw)
    listed = api.get_messages()
    check(listed.total == 1 and listed.messages[0].subject == "bare", "the bare message is listed")
    try:
        headers = api.get_message_headers(listed.messages[0].id)
        check(headers.date == [] and headers.delivered_to == [] and headers.from_ == ["app@example.com"]
              and headers.message_id == [f"<{listed.messages[0].id}@mailpit>"],
              f"get_message_headers of a message without Date, Message-ID, Delivered-To ({headers})")
    except Exception as error:  # noqa: BLE001  the client's own failure is what is checked
        check(False, f"get_message_headers of a message without Date, Message-ID, Delivered-To: {error!r}")
    search = server + "/mailpit/api/v1/search"
    found = requests.get(search, params={"query": "bcc:hidden@example.org"}, auth=("any", TOKEN), timeout=30).json()
    check([m["Subject"] for m in found["messages"]] == ["bare"]
          and [a["Address"] for a in found["messages"][0]["Bcc"]] == ["hidden@example.org"],
          "bcc: finds the envelope recipient no field names, and Bcc lists it (as Mailpit files it)")
    none = requests.get(search, params={"query": "bcc:ann@example.org"}, auth=("any", TOKEN), timeout=30).json()
    check(none["messages"] == [], "bcc: does not find the recipient To names")
    page = requests.get(server + "/mailpit/", timeout=30)
    check(page.status_code == 200 and "postern web link --all" in page.text and "/mailpit/api/v1" in page.text
          and 'API("https://any:TOKEN@your-host/mailpit")' in page.text, "/mailpit/: the page, with no credential")
    api.delete_messages([])


def requests_calls(server):
    """The rest of the API with `requests`, as a hand-written suite calls it."""
    import requests
    api = server + "/mailpit/api/v1"
    auth = ("any", TOKEN)
    bearer = {"Authorization": "Bearer " + TOKEN}
    unauthorised = requests.get(api + "/messages", timeout=30)
    check(unauthorised.status_code == 401 and unauthorised.text == "Unauthorized.\n"
          and unauthorised.headers["WWW-Authenticate"] == 'Basic realm="Login"', "no credential: Mailpit's 401")
    check(requests.get(api + "/messages", auth=("any", "wrong"), timeout=30).status_code == 401, "a wrong token: 401")
    send(server, "cy@example.org", "Invoice 42", html="<p onclick='x()'>Pay <b>now</b></p><script>1</script>",
         tags="Billing, Month End")
    send(server, "dee@example.org", "Newsletter")
    found = requests.get(api + "/search", params={"query": 'tag:billing subject:"invoice 42"'}, auth=auth, timeout=30)
    body = found.json()
    check(found.status_code == 200 and body["messages_count"] == 1 and body["total"] == 2, "search: one of two")
    invoice = body["messages"][0]
    check(sorted(invoice["Tags"]) == ["Billing", "Month End"], "X-Tags on arrival are the tags")
    check(requests.get(api + "/search", params={"query": "-tag:billing"}, headers=bearer, timeout=30)
          .json()["messages"][0]["Subject"] == "Newsletter", "a negated tag, with a bearer")
    check(requests.get(api + "/search", auth=auth, timeout=30).text == "Error: no search query", "no query: 400")
    tagged = requests.put(api + "/tags", json={"IDs": [invoice["ID"]], "Tags": ["Paid"]}, auth=auth, timeout=30)
    check(tagged.status_code == 200 and tagged.text == "ok", "PUT /tags: ok")
    check(requests.get(api + "/tags", auth=auth, timeout=30).json() == ["Paid"], "the tags in use")
    requests.put(api + "/tags/Paid", json={"Name": "Settled Up"}, auth=auth, timeout=30)
    check(requests.get(api + "/tags", auth=auth, timeout=30).json() == ["Settled Up"], "a tag renamed")
    requests.delete(api + "/tags/Settled%20Up", auth=auth, timeout=30)
    check(requests.get(api + "/tags", auth=auth, timeout=30).json() == [], "a tag deleted")
    view = requests.get(server + f"/mailpit/view/{invoice['ID']}.html", auth=auth, timeout=30)
    check(view.status_code == 200 and "<b>now</b>" in view.text and "script" not in view.text
          and "onclick" not in view.text, "view .html: the HTML, sanitized")
    raw = requests.get(api + "/message/latest/raw", auth=auth, timeout=30)
    check(raw.status_code == 200 and "Subject: Newsletter" in raw.text, "raw of latest")
    sent = requests.post(api + "/send", auth=auth, timeout=30, json={
        "From": {"Email": "app@example.com", "Name": "App"}, "To": [{"Email": "eve@example.org", "Name": "Eve"}],
        "Subject": "Sent through the API", "Text": "Hi Eve", "Tags": ["Api"],
        "Attachments": [{"Filename": "a.txt", "Content": "aGVsbG8="}]})
    check(sent.status_code == 200 and "ID" in sent.json(), f"send: {sent.status_code} {sent.text}")
    detail = requests.get(api + "/message/" + sent.json()["ID"], auth=auth, timeout=30).json()
    check(detail["Subject"] == "Sent through the API" and detail["Tags"] == ["Api"]
          and detail["Attachments"][0]["FileName"] == "a.txt", "the sent message, as stored")
    check(requests.post(api + "/send", json={"To": []}, auth=auth, timeout=30).json().get("Error"), "send without From")
    info = requests.get(api + "/info", auth=auth, timeout=30).json()
    check(info["Messages"] == 3 and info["Unread"] >= 1 and "RuntimeStats" in info, "info")
    check(requests.get(api + "/webui", auth=auth, timeout=30).json()["ChaosEnabled"] is True,
          "webui: chaos on, as --profile test turns it on")
    release = requests.post(api + f"/message/{invoice['ID']}/release", json={"To": ["zoe@example.net"]}, auth=auth,
                            timeout=30)
    check((release.status_code, release.text) == (400, "SMTP relay is not enabled"),
          "release with outbound delivery off: Mailpit's answer without a relay")
    check(requests.get(api + "/webui", auth=auth, timeout=30).json()["MessageRelay"]["Enabled"] is False,
          "webui: no relay")
    check(requests.get(api + f"/message/{invoice['ID']}/sa-check", auth=auth, timeout=30).status_code == 404,
          "sa-check: no spamd, no route")
    marked = requests.put(api + "/messages", json={"Read": True, "Search": "subject:invoice"}, auth=auth, timeout=30)
    check(marked.text == "ok", "read status by search")
    refused = requests.delete(api + "/messages", data=b"{broken", auth=auth, timeout=30)
    check(refused.status_code == 400 and requests.get(api + "/messages", auth=auth, timeout=30).json()["total"] == 3,
          "a broken body is 400 and deletes nothing")
    requests.delete(api + "/search", params={"query": "subject:newsletter"}, auth=auth, timeout=30)
    check(requests.get(api + "/messages", auth=auth, timeout=30).json()["total"] == 2, "search delete")


class Links(BaseHTTPRequestHandler):
    """A web server on loopback for the link check: /ok is 200, anything else 404."""
    def do_GET(self):
        self.send_response(200 if self.path == "/ok" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


def link_check(server):
    """The link check fetches through the outbound fetcher (this server lets it reach loopback:
    POSTERN_OUTBOUND_ALLOW_PRIVATE)."""
    import requests
    site = ThreadingHTTPServer(("127.0.0.1", 0), Links)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{site.server_address[1]}"
        send(server, "fay@example.org", "Links", text=f"Confirm at {base}/ok or see {base}/missing.")
        checked = requests.get(server + "/mailpit/api/v1/message/latest/link-check", auth=("op", TOKEN), timeout=60)
        body = checked.json()
        check(checked.status_code == 200 and body["Errors"] == 1, f"link-check: one error of two: {body}")
        check([(link["URL"], link["StatusCode"], link["Status"]) for link in body["Links"]]
              == [(base + "/ok", 200, "OK"), (base + "/missing", 404, "Not Found")], "each link's status, in order")
    finally:
        site.shutdown()


def next_event(socket, wanted):
    """The next event of type `wanted` (of any type when None), passing over `stats` and any other type; waits up to
    30 s for each frame."""
    import json
    while True:
        event = json.loads(socket.recv())
        if wanted is None or event["Type"] == wanted:
            return event


def events(server):
    """The events socket: new for an SMTP delivery, update for a read mark and delete for a delete through the operator
    API and through JMAP, stats after each, and Mailpit's 401 without a credential."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".build", "client-sdks",
                                    "websockets"))
    import websocket  # websocket-client, which scripts/client-tests installs
    url = "ws" + server[len("http"):] + "/mailpit/api/events"
    try:
        websocket.create_connection(url, timeout=10)
        check(False, "events without a credential: refused")
    except websocket.WebSocketBadStatusException as error:
        check(error.status_code == 401, "events without a credential: 401 before the upgrade")
    socket = websocket.create_connection(url, timeout=30, header=["Authorization: Bearer " + TOKEN])
    try:
        send(server, "gus@example.org", "Watched")
        new = next_event(socket, "new")
        check(new["Data"]["Subject"] == "Watched" and new["Data"]["Read"] is False, "new: the MessageSummary")
        stats = next_event(socket, "stats")
        check(set(stats["Data"]) == {"Total", "Unread", "Version"}, "stats after it")
        identifier = new["Data"]["ID"]
        status, _, _ = http(server, "PUT", "/api/operator/messages/" + identifier, {"read": True}, bearer=TOKEN)
        update = next_event(socket, "update")
        check(status == 200 and update["Data"] == {"ID": identifier, "Read": True}, "update: read through another door")
        status, _, _ = http(server, "DELETE", "/api/operator/messages/" + identifier, bearer=TOKEN)
        deleted = next_event(socket, "delete")
        check(status == 204 and deleted["Data"] == {"ID": identifier}, "delete: through another door")
        # JMAP is a door too: an agent marks its message read and destroys it.
        agent = JMAPAgent(server, "mailpitwatch")
        send(server, agent.address, "To the agent")
        arrived = next_event(socket, "new")["Data"]["ID"]
        agent.call(["Email/set", {"update": {arrived: {"keywords/$seen": True}}}, "0"])
        check(next_event(socket, "update")["Data"] == {"ID": arrived, "Read": True}, "update: read through JMAP")
        agent.call(["Email/set", {"destroy": [arrived]}, "0"])
        check(next_event(socket, "delete")["Data"] == {"ID": arrived}, "delete: destroyed through JMAP")
    finally:
        socket.close()


def retention_prune(env):
    """Retention's pass is Mailpit's `prune` event: a server that keeps 3 messages (POSTERN_MAIL_MAX_MESSAGES) takes
    5, its next pass (every 10 s) removes the 2 oldest, and the events socket says `prune` (Data null), then `stats`
    with 3 left, and never `delete` for them."""
    import requests
    import websocket
    with postern(env=dict(env, POSTERN_MAIL_MAX_MESSAGES="3")) as server:
        url = "ws" + server[len("http"):] + "/mailpit/api/events"
        socket = websocket.create_connection(url, timeout=30, header=["Authorization: Bearer " + TOKEN])
        try:
            for n in range(5):
                send(server, "kim@example.org", f"Kept or pruned {n}")
            seen = []
            while "prune" not in seen:
                seen.append(next_event(socket, None)["Type"])
            check("delete" not in seen, f"no delete before the prune: {seen}")
            stats = next_event(socket, "stats")
            check(stats["Data"]["Total"] == 3, f"stats after the prune: {stats}")
        finally:
            socket.close()
        # A pass may have run between two sends: the next one takes the rest.
        for _ in range(60):
            left = requests.get(server + "/mailpit/api/v1/messages", auth=("op", TOKEN), timeout=30).json()
            if left["total"] == 3:
                break
            time.sleep(1)
        check(sorted(m["Subject"] for m in left["messages"]) == [f"Kept or pruned {n}" for n in (2, 3, 4)],
              "the newest 3 kept")


def smtp_refusals(port, recipients, password=None):
    """Sends one message to each of `recipients` over one smtplib session (after STARTTLS and AUTH with `password`
    when given); one (code, text) a recipient, (250, "") when accepted."""
    import ssl
    answers = []
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        if password:
            client.starttls(context=ssl._create_unverified_context())
            client.login("any", password)
        for recipient in recipients:
            try:
                client.sendmail("app@example.com", [recipient], b"Subject: chaos\r\n\r\nhello\r\n")
                answers.append((250, ""))
            except smtplib.SMTPRecipientsRefused as error:
                code, text = list(error.recipients.values())[0]
                answers.append((code, text.decode()))
                client.rset()
    return answers


def chaos(server):
    """Mailpit's chaos triggers on the failure-injection engine: the operator's Recipient trigger refuses each RCPT TO
    on the ingest port with its code and Mailpit's text, `{}` turns it off, a refused body sets nothing."""
    import requests
    api = server + "/mailpit/api/v1"
    auth = ("op", TOKEN)
    off = requests.get(api + "/chaos", auth=auth, timeout=30)
    check(off.status_code == 200 and off.json() == {
        "Sender": {"ErrorCode": 451, "Probability": 0}, "Recipient": {"ErrorCode": 451, "Probability": 0},
        "Authentication": {"ErrorCode": 535, "Probability": 0}}, f"GET /chaos: every trigger off: {off.text}")
    before = requests.get(api + "/messages", auth=auth, timeout=30).json()["total"]
    set_ = requests.put(api + "/chaos", json={"Recipient": {"ErrorCode": 452, "Probability": 100}}, auth=auth,
                        timeout=30)
    check(set_.status_code == 200 and set_.json()["Recipient"] == {"ErrorCode": 452, "Probability": 100}
          and set_.json()["Sender"]["Probability"] == 0, f"PUT /chaos answers the triggers: {set_.text}")
    refused = smtp_refusals(server.smtp_port, ["hal@example.org", "ida@example.org"])
    check(refused == [(452, "Chaos recipient error")] * 2, f"each RCPT TO refused with 452: {refused}")
    check(requests.get(api + "/messages", auth=auth, timeout=30).json()["total"] == before, "nothing stored")
    bad = requests.put(api + "/chaos", json={"Sender": {"ErrorCode": 250, "Probability": 5}}, auth=auth, timeout=30)
    check((bad.status_code, bad.text) == (400, "error code must be between 400 and 599"), "a 250 refused, as Mailpit")
    check(requests.get(api + "/chaos", auth=auth, timeout=30).json()["Recipient"]["Probability"] == 100,
          "a refused PUT sets nothing")
    check(requests.put(api + "/chaos", json={}, auth=auth, timeout=30).json()["Recipient"]["Probability"] == 0,
          "PUT {}: every trigger off")
    check(smtp_refusals(server.smtp_port, ["hal@example.org"]) == [(250, "")], "accepted again")


def pro_sandbox(server):
    """A Pro user's API token sees that user's sandbox only; the operator sees it too; another's token does not."""
    import requests
    api = server + "/mailpit/api/v1"
    ada = pro_token(server, pro_login(server, "ada@example.com", "ada-password"), "mailpit")["token"]
    bob = pro_token(server, pro_login(server, "bob@example.com", "bob-password"), "mailpit")["token"]
    sent = requests.post(api + "/send", auth=("ada", ada), timeout=30, json={
        "From": {"Email": "app@example.com"}, "To": [{"Email": "anyone@example.net"}], "Subject": "Ada's capture"})
    check(sent.status_code == 200, f"a Pro user's send goes to their sandbox: {sent.status_code} {sent.text}")
    mine = requests.get(api + "/messages", headers={"Authorization": "Bearer " + ada}, timeout=30).json()
    check([m["Subject"] for m in mine["messages"]] == ["Ada's capture"], "Ada sees her sandbox only")
    theirs = requests.get(api + "/messages", auth=("bob", bob), timeout=30).json()
    check(theirs["total"] == 0, "Bob sees none of Ada's mail")
    check(requests.get(api + "/message/" + sent.json()["ID"], auth=("bob", bob), timeout=30).status_code == 404,
          "Bob cannot open Ada's message")
    everything = requests.get(api + "/search", params={"query": "subject:capture"}, auth=("op", TOKEN), timeout=30)
    check(everything.json()["messages_count"] == 1, "the operator sees the sandbox's mail too")
    # Chaos per Pro user: Ada's Recipient trigger refuses her sandbox sessions' recipients, never Bob's nor the
    # ingest port's; the operator's triggers stay off.
    mine = requests.put(api + "/chaos", json={"Recipient": {"ErrorCode": 550, "Probability": 100}}, auth=("ada", ada),
                        timeout=30)
    check(mine.status_code == 200 and mine.json()["Recipient"]["ErrorCode"] == 550, f"Ada's chaos: {mine.text}")
    check(requests.get(api + "/chaos", auth=("op", TOKEN), timeout=30).json()["Recipient"]["Probability"] == 0,
          "the operator's triggers are not Ada's")
    ada_sent = smtp_refusals(server.sandbox_port, ["x@example.net", "y@example.net"], password=ada)
    bob_sent = smtp_refusals(server.sandbox_port, ["x@example.net", "y@example.net"], password=bob)
    check(ada_sent == [(550, "Chaos recipient error")] * 2, f"Ada's sandbox refuses: {ada_sent}")
    check(bob_sent == [(250, "")] * 2, f"Bob's sandbox does not: {bob_sent}")
    check(smtp_refusals(server.smtp_port, ["zed@example.org"]) == [(250, "")], "nor does the ingest port")


def main():
    install_packages(CLIENT, ["mailpit-api-client==1.0.0"], ["mailpit"], no_deps=True)
    install_packages("mailpit-api-client-deps", ["dataclasses-json==0.6.7", "httpx==0.28.1"],
                     ["dataclasses_json", "httpx"])
    pros = [("ada@example.com", "ada-password"), ("bob@example.com", "bob-password")]
    env = {"POSTERN_OPERATOR_TOKEN": TOKEN, "POSTERN_SMTP_ACCEPT": "any", "POSTERN_OUTBOUND_ALLOW_PRIVATE": "true"}
    sandbox_port = free_port()  # the Pro users' sandbox listener, for their chaos triggers
    with postern(env=dict(env, POSTERN_SANDBOX_SMTP_PORT=str(sandbox_port)), pro_users=pros) as server:
        server.sandbox_port = sandbox_port
        client_library(server)
        bare_message(server)
        requests_calls(server)
        link_check(server)
        events(server)
        chaos(server)
        pro_sandbox(server)
    retention_prune(env)
    check.finish("test_mailpit_api")


if __name__ == "__main__":
    main()
