"""The operator's message API as a test suite uses Mailpit's (issue 51): plain urllib against a real `postern serve
--profile test` with POSTERN_OPERATOR_TOKEN and the catch-all, every endpoint and its errors. Mail goes in over SMTP
(smtplib); what comes back is read whole (`/{id}`), raw, by attachment, marked, deleted, and waited for as a queue
(`since`)."""

import email
import os
import smtplib
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from email.message import EmailMessage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern

check = Checks()
TOKEN = "operator-token-" + "0123456789abcdef" * 2
AUTH = {"Authorization": "Bearer " + TOKEN}
LINK = "https://app.example/confirm?token=" + "6f1a2b3c" * 40  # longer than any preview
PAYLOAD = bytes(range(256))


def send(server, to, subject, text="hello", html=None, attachment=None):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "App <app@example.com>", to, subject
    message["Date"] = "Mon, 15 Jun 2025 15:06:40 +0200"
    message.set_content(text)
    if html:
        message.add_alternative(html, subtype="html")
    if attachment:
        message.add_attachment(attachment, maintype="application", subtype="octet-stream", filename="blob.bin")
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as client:
        client.send_message(message)


def call(server, method, path, body=None, token=TOKEN):
    return http(server, method, "/api/operator/messages" + path, body=body, bearer=token)


def download(server, path):
    """(status, content type, bytes) of a GET with the operator token."""
    request = urllib.request.Request(server + "/api/operator/messages" + path, headers=AUTH)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def newest(server, query=""):
    return call(server, "GET", "?limit=1" + query)[2]["messages"][0]


def whole_message(server):
    send(server, "ann@example.org", "Confirm your address", text=f"Welcome.\nConfirm: {LINK}\n",
         html=f'<p><a href="{LINK}&amp;from=html">Confirm</a></p>', attachment=PAYLOAD)
    listed = newest(server, "&to=ann%40example.org")
    check(LINK not in listed["preview_text"], "the list's preview cuts the link (why /{id} exists)")
    status, _, detail = call(server, "GET", "/" + listed["id"])
    check(status == 200, f"GET /{{id}}: 200 ({status})")
    check(detail["links"] == [LINK, LINK + "&from=html"], "links: the text's URL whole, then the HTML's href decoded")
    check(detail["from"] == "App <app@example.com>" and detail["to"] == ["ann@example.org"], "from and to")
    check(detail["envelope_to"] == ["ann@example.org"] and detail["address"] == "catch-all@postern.invalid",
          "the envelope recipient, stored in the catch-all")
    check(detail["subject"] == "Confirm your address" and detail["date"] == "2025-06-15T13:06:40Z",
          "subject and date (the Date header in UTC)")
    check({"name": "Subject", "value": "Confirm your address"} in detail["headers"], "headers: every field in order")
    check(LINK in detail["text_body"] and "&amp;from=html" in detail["html_body"], "text and HTML bodies")
    check(detail["attachments"] == [{"index": 0, "filename": "blob.bin", "content_type": "application/octet-stream",
                                     "size": 256}], "attachments: index, name, type and size")
    status, kind, raw = download(server, f"/{listed['id']}/raw")
    parsed = email.message_from_bytes(raw)
    check(status == 200 and kind == "message/rfc822" and parsed["Subject"] == "Confirm your address",
          "GET /{id}/raw: message/rfc822 that parses back")
    status, kind, data = download(server, f"/{listed['id']}/attachments/0")
    check(status == 200 and kind == "application/octet-stream" and data == PAYLOAD,
          "GET /{id}/attachments/0: the decoded bytes with their type")
    status, _, body = call(server, "GET", f"/{listed['id']}/attachments/1")
    check((status, body) == (404, {"error": "not_found"}), "an attachment index the message lacks: 404")
    return listed["id"]


def read_unread_delete(server, identifier):
    status, _, marked = call(server, "PUT", "/" + identifier, {"read": True})
    check(status == 200 and marked["is_read"] is True and marked["id"] == identifier, "PUT {read: true}")
    check(call(server, "GET", "/" + identifier)[2]["is_read"] is True, "GET shows it read")
    status, _, marked = call(server, "PUT", "/" + identifier, {"read": False})
    check(status == 200 and marked["is_read"] is False, "PUT {read: false}: unread again")
    for body in ({"read": "yes"}, {"Read": True}, [True]):
        status, _, answer = call(server, "PUT", "/" + identifier, body)
        check((status, answer) == (400, {"error": "invalid_request"}), f"PUT {body}: 400 invalid_request")
    status, _, _ = call(server, "DELETE", "/" + identifier)
    check(status == 204, f"DELETE /{{id}}: 204 ({status})")
    for method, suffix, body in (("GET", "", None), ("GET", "/raw", None), ("GET", "/attachments/0", None),
                                 ("PUT", "", {"read": True}), ("DELETE", "", None)):
        status, _, answer = call(server, method, f"/{identifier}{suffix}", body)
        check((status, answer) == (404, {"error": "not_found"}), f"{method} {suffix or '/{id}'} of a deleted id: 404")
    status, _, answer = call(server, "GET", "/" + identifier, token="wrong-" + TOKEN)
    check((status, answer) == (401, {"error": "unauthorized"}), "a wrong token: 401 unauthorized")


def queue(server):
    send(server, "other@example.org", "before the point")
    point = newest(server)["id"]
    for n in (1, 2):
        send(server, "queue@example.org", f"code {n}")
    send(server, "other@example.org", "not for the queue")
    last = point
    for n in (1, 2):
        status, _, found = call(server, "GET", f"/wait?to=queue%40example.org&since={last}&timeout=10")
        check(status == 200 and found["subject"] == f"code {n}", f"wait since the last one read: code {n} next")
        last = found["id"]
    status, _, _ = call(server, "GET", f"/wait?to=queue%40example.org&since={last}&timeout=1")
    check(status == 204, "wait since the last: 204 when nothing newer came")
    status, _, listed = call(server, "GET", f"?since={point}")
    check([m["subject"] for m in listed["messages"]] == ["not for the queue", "code 2", "code 1"]
          and listed["total"] == 3, "the list since a message id: only the newer ones")
    future = urllib.parse.quote(time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() + 3600)))
    check(call(server, "GET", f"?since={future}")[2] == {"messages": [], "total": 0, "start": 0},
          "the list since a future RFC 3339 time: empty")
    past = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
    everything = call(server, "GET", f"?since={past}")[2]["total"]
    status, _, page = call(server, "GET", "?limit=2&start=1")
    check(status == 200 and len(page["messages"]) == 2 and page["start"] == 1 and page["total"] == everything,
          "limit and start page the list; total counts every match")
    check(page["messages"][0]["subject"] == "code 2", "start=1 passes over the newest")
    for query, parameter in (("?limit=0", "limit"), ("?limit=101", "limit"), ("?limit=ten", "limit"),
                             ("?start=-1", "start"), ("?start=1000001", "start"), ("?since=nope", "since"),
                             ("?since=now", "since"), ("?since=2025-02-30T25:00:00Z", "since"),
                             ("/wait?since=nope&timeout=0", "since")):
        status, _, answer = call(server, "GET", query)
        check(status == 400 and answer.get("error") == "invalid_request" and answer.get("parameter") == parameter
              and answer.get("message", "").startswith(parameter + " must be"),
              f"{query}: 400 invalid_request naming {parameter}")


def main():
    with postern(env={"POSTERN_OPERATOR_TOKEN": TOKEN, "POSTERN_SMTP_ACCEPT": "any"}) as server:
        read_unread_delete(server, whole_message(server))
        queue(server)
        status, _, answer = call(server, "GET", "/00000000-0000-0000-0000-000000000000")
        check((status, answer) == (404, {"error": "not_found"}), "an id no message has: 404")
    check.finish("test_operator_messages")


if __name__ == "__main__":
    main()
