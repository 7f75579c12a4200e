"""The operator's live events (issue 55): `/api/operator/events`, a WebSocket in Mailpit's shape, against a real
`postern serve --profile test` with POSTERN_OPERATOR_TOKEN and the catch-all. websocket-client (from PyPI, installed
by scripts/client-tests) waits for a message sent over SMTP instead of polling, filters with ?to=, and hears the
reset that DELETE /api/operator/messages makes."""

import json
import os
import smtplib
import sys
from email.message import EmailMessage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, ".build", "client-sdks", "websockets"))
import websocket  # websocket-client

from postern_testkit import Checks, http, postern

check = Checks()
TOKEN = "operator-token-" + "0123456789abcdef" * 2


def send(server, to, subject):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "App <app@example.com>", to, subject
    message.set_content("Confirm: https://app.example/confirm?t=1\n")
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as client:
        client.send_message(message)


def events(server, query=""):
    url = "ws" + server[len("http"):] + "/api/operator/events" + query
    return websocket.create_connection(url, timeout=5, header=["Authorization: Bearer " + TOKEN])


def main():
    with postern(env={"POSTERN_OPERATOR_TOKEN": TOKEN, "POSTERN_SMTP_ACCEPT": "any"}) as server:
        try:
            websocket.create_connection("ws" + server[len("http"):] + "/api/operator/events", timeout=5)
            check(False, "no token: refused")
        except websocket.WebSocketBadStatusException as error:
            check(error.status_code == 401, f"no token: 401 before the upgrade ({error.status_code})")
        send(server, "old@example.org", "before the socket")
        every, only_bob = events(server), events(server, "?to=bob%40example.org")
        send(server, "ann@example.org", "for ann")
        send(server, "bob@example.org", "for bob")
        first, second = json.loads(every.recv()), json.loads(every.recv())
        check(first["type"] == "new" and first["message"]["subject"] == "for ann"
              and second["message"]["subject"] == "for bob", "every new message, in arrival order, none from before")
        check(first["message"]["envelope_to"] == ["ann@example.org"] and "id" in first["message"]
              and "preview_text" in first["message"], "the message is the operator list's summary")
        listed = http(server, "GET", "/api/operator/messages/" + first["message"]["id"], bearer=TOKEN)
        check(listed[0] == 200, "its id reads through /api/operator/messages/{id}")
        filtered = json.loads(only_bob.recv())
        check(filtered["message"]["subject"] == "for bob", "?to= keeps only bob's")
        status, _, _ = http(server, "DELETE", "/api/operator/messages", bearer=TOKEN)
        check(status == 200 and json.loads(every.recv()) == {"type": "reset"}, "DELETE /api/operator/messages: reset")
        send(server, "carol@example.org", "after the reset")
        check(json.loads(every.recv())["message"]["subject"] == "after the reset", "new mail after the reset")
        every.close()
        only_bob.close()
    check.finish("test_operator_events")


if __name__ == "__main__":
    main()
