"""Postern as the stand-in a test suite starts with one flag: --profile test and the JSON line, then the operator's
message API for what was sent. Run under pytest-xdist (`pytest -n 2`), each worker with its own server."""

import json
import os
import re
import smtplib
import socket
import subprocess
import threading
import time
import urllib.request
import uuid
from email.message import EmailMessage

import pytest

from conftest import POSTERN, start_postern


def send(smtp, to, subject, text="hello", login=None):
    host, port = smtp.rsplit(":", 1)
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "app@example.com", to, subject
    message.set_content(text)
    with smtplib.SMTP(host, int(port), timeout=30) as client:
        if login:
            client.login(*login)
        client.send_message(message)


def get(base, path, body=None, token=None):
    request = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def test_the_docs_show_this_fixture():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs", "testing.md")) as docs:
        shown = re.search(r"```python\n# conftest.py\n(.*?)```", docs.read(), re.S).group(1)
    with open(os.path.join(here, "conftest.py")) as conftest:
        assert conftest.read().split('"""\n\n', 1)[1] == shown


def test_the_json_line_names_every_listener(postern):
    assert postern["http"].startswith("http://127.0.0.1:") and not postern["http"].endswith(":8080")
    assert postern["smtp"].startswith("127.0.0.1:") and postern["sandbox"].startswith("127.0.0.1:")
    assert os.path.isdir(postern["data_dir"])
    assert get(postern["http"], "/healthz") == {"status": "ok"}


def test_the_next_message_gives_the_whole_link(postern, next_mail):
    address = f"{uuid.uuid4().hex[:12]}@example.org"
    link = "https://app.example/confirm?token=" + uuid.uuid4().hex * 8
    send(postern["smtp"], address, "welcome", text=f"Confirm: {link}\n")
    message = next_mail(address)
    assert message["subject"] == "welcome" and message["links"] == [link]


def test_the_next_message_finds_each_recipient_of_one_catch_all_copy(postern, next_mail):
    # One message to three addresses the server does not hold: one copy in the catch-all, envelope_to listing all
    # three (issue 68: it was one string "a, b, c", which the fixture's equality never matched).
    tag = uuid.uuid4().hex[:12]
    recipients = [f"{tag}-{n}@example.org" for n in ("a", "b", "c")]
    send(postern["smtp"], ", ".join(recipients), "to three")
    message = next_mail(recipients[1])
    assert message["subject"] == "to three" and message["envelope_to"] == recipients
    assert message["address"] == "catch-all@postern.invalid"


def test_one_catch_all_copy_is_the_next_mail_of_each_recipient(postern, next_mail):
    # One message to ann and bob, neither an account: one catch-all copy whose envelope_to names both. Asked for bob
    # first, then ann, each gets it (issue 83 item 8: the fixture gave the copy away at bob's call, and ann's timed
    # out); asked again, neither has a next one.
    tag = uuid.uuid4().hex[:12]
    ann, bob = f"ann-{tag}@example.org", f"bob-{tag}@example.org"
    send(postern["smtp"], f"{ann}, {bob}", "to ann and bob")
    to_bob = next_mail(bob)
    to_ann = next_mail(ann, timeout=5)
    assert to_bob["subject"] == to_ann["subject"] == "to ann and bob" and to_bob["id"] == to_ann["id"]
    assert to_ann["envelope_to"] == [ann, bob]
    send(postern["smtp"], ann, "to ann alone")
    assert next_mail(ann)["subject"] == "to ann alone"
    with pytest.raises(AssertionError, match="no mail to bob"):
        next_mail(bob, timeout=1)


def test_the_next_message_is_a_queue_in_arrival_order(postern, next_mail):
    address = f"{uuid.uuid4().hex[:12]}@example.org"
    for subject in ("first", "second", "third"):
        send(postern["smtp"], address, subject)
    assert [next_mail(address)["subject"] for _ in range(3)] == ["first", "second", "third"]


def test_agent_signup_needs_no_work(postern):
    assert get(postern["http"], "/api/v1/challenge", body={})["difficulty"] == 0


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
    env = {"POSTERN_DNS_RESOLVER": resolver.address, "POSTERN_SANDBOX_MAIL_AUTH": "on" if mail_auth else "off"}
    subprocess.run([POSTERN, "pro", "create", "--data-dir", data, "--email", "pro@example.com",
                    "--password", "hunter22"], check=True, capture_output=True, env=dict(os.environ, **env))
    process, bound = start_postern("--data-dir", data, env=env)
    try:
        base = bound["http"]
        login = get(base, "/api/user/login", {"email": "pro@example.com", "password": "hunter22"})
        created = get(base, "/api/user/tokens", {"name": "ci"}, token=login["token"])
        send(bound["sandbox"], "someone@example.org", "captured", login=("ci", created["token"]))
        listed = get(base, "/api/user/sandbox/messages", token=login["token"])
        assert [m["subject"] for m in listed["messages"]] == ["captured"]
        time.sleep(0.2)
        return resolver.questions
    finally:
        process.terminate()
        process.wait(timeout=30)
        subprocess.run(["rm", "-rf", data], check=False)


def test_the_profile_asks_dns_nothing():
    assert sandbox_capture(mail_auth=False) == 0


def test_the_counting_resolver_sees_the_lookups_the_profile_turns_off():
    # The control: with the sandbox's SPF/DKIM/DMARC on again, the same message makes the server ask.
    assert sandbox_capture(mail_auth=True) > 0
