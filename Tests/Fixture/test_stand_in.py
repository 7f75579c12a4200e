"""Postern as the stand-in a test suite starts with one flag: --profile test and the JSON line, nothing else. Run
under pytest-xdist (`pytest -n 4`), each worker with its own server."""

import json
import os
import smtplib
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from email.message import EmailMessage

from conftest import POSTERN, start_postern, stop_postern


def call(base, method, path, body=None, token=None):
    request = urllib.request.Request(base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, json.loads(raw) if raw else None


def account(base):
    """A Mail.td account on the default domain: no proof of work under the test profile."""
    address = f"{uuid.uuid4().hex[:12]}@mail.localhost"
    status, body = call(base, "POST", "/api/accounts", {"address": address, "password": "hunter22"})
    assert status == 201, body
    return address, body["id"], body["token"]


def mail(smtp, sender, to, subject):
    host, port = smtp.rsplit(":", 1)
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message.set_content("hello")
    with smtplib.SMTP(host, int(port), timeout=30) as client:
        client.send_message(message)


def test_the_json_line_names_every_listener(postern):
    assert postern["http"].startswith("http://127.0.0.1:") and not postern["http"].endswith(":8080")
    assert postern["smtp"].startswith("127.0.0.1:") and postern["sandbox"].startswith("127.0.0.1:")
    assert os.path.isdir(postern["data_dir"])
    assert call(postern["http"], "GET", "/healthz") == (200, {"status": "ok"})


def test_an_account_receives_smtp_mail_and_waits_for_it(postern):
    address, account_id, token = account(postern["http"])
    mail(postern["smtp"], "ci@example.com", address, "welcome")
    status, message = call(postern["http"], "GET", f"/api/accounts/{account_id}/messages/wait?timeout=10",
                           token=token)
    assert status == 200 and message["subject"] == "welcome"


def test_messages_of_one_second_keep_their_order(postern):
    address, account_id, token = account(postern["http"])
    for subject in ("first", "second", "third"):
        mail(postern["smtp"], "ci@example.com", address, subject)
    status, listed = call(postern["http"], "GET", f"/api/accounts/{account_id}/messages", token=token)
    assert status == 200
    assert [m["subject"] for m in listed["messages"]] == ["third", "second", "first"]
    status, oldest = call(postern["http"], "GET", f"/api/accounts/{account_id}/messages/wait?timeout=5", token=token)
    assert oldest["subject"] == "first"


def test_agent_signup_needs_no_work(postern):
    status, challenge = call(postern["http"], "POST", "/api/v1/challenge")
    assert status == 200 and challenge["difficulty"] == 0


class CountingResolver:
    """A DNS server on loopback that counts the questions it gets and refuses each (RCODE 5) at once."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.address = "127.0.0.1:%d" % self.socket.getsockname()[1]
        self.questions = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                query, peer = self.socket.recvfrom(4096)
            except OSError:
                return
            self.questions += 1
            # Same id and question; QR=1, RA=1, RCODE=5 (refused); no answers.
            flags = bytes([0x80 | (query[2] & 0x01), 0x85])
            self.socket.sendto(query[:2] + flags + query[4:6] + b"\x00\x00\x00\x00\x00\x00" + query[12:], peer)


def sandbox_capture(mail_auth):
    """Starts a test-profile server whose resolver counts, sends one message through its SMTP sandbox with a Pro API
    token, and returns how many DNS questions the server asked."""
    resolver = CountingResolver()
    data = f"/tmp/postern-fixture-{uuid.uuid4().hex}"
    env = {"POSTERN_DNS_RESOLVER": resolver.address}
    if mail_auth:
        env["POSTERN_SANDBOX_MAIL_AUTH"] = "on"
    subprocess.run([POSTERN, "pro", "create", "--data-dir", data, "--email", "pro@example.com",
                    "--password", "hunter22"], check=True, capture_output=True, env=dict(os.environ, **env))
    process, bound = start_postern("--data-dir", data, env=env)
    try:
        base = bound["http"]
        status, login = call(base, "POST", "/api/user/login", {"email": "pro@example.com", "password": "hunter22"})
        assert status == 200, login
        status, created = call(base, "POST", "/api/user/tokens", {"name": "ci"}, token=login["token"])
        assert status == 201, created
        host, port = bound["sandbox"].rsplit(":", 1)
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = "app@example.com", "someone@example.org", "captured"
        message.set_content("hello")
        with smtplib.SMTP(host, int(port), timeout=30) as client:
            client.login("ci", created["token"])
            client.send_message(message)
        status, listed = call(base, "GET", "/api/user/sandbox/messages", token=login["token"])
        assert status == 200 and [m["subject"] for m in listed["messages"]] == ["captured"]
        time.sleep(0.2)
        return resolver.questions
    finally:
        stop_postern(process)
        subprocess.run(["rm", "-rf", data], check=False)


def test_the_profile_asks_dns_nothing():
    assert sandbox_capture(mail_auth=False) == 0


def test_the_counting_resolver_sees_the_lookups_the_profile_turns_off():
    # The control: with the sandbox's SPF/DKIM/DMARC on again, the same message makes the server ask.
    assert sandbox_capture(mail_auth=True) > 0
