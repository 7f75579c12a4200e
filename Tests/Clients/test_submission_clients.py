"""The submission listener as real clients nobody here wrote speak it (issue 87): Debian's `swaks` and `msmtp`,
unmodified, against `postern serve --profile test` (submission on, on free loopback ports, with SMTP's certificate from
a local CA). An agent inbox sends with its address and API key: swaks with `--auth PLAIN` after STARTTLS, msmtp on the
implicit-TLS port; an owner's inbox with an OAuth access token that carries `mail.send`, by XOAUTH2 (swaks' own when
it has it, else msmtp's `--auth=xoauth2`: Debian's swaks 20201014 predates its XOAUTH2) and by msmtp's OAUTHBEARER.
Each message is read back over IMAP (imaplib) in the recipient's INBOX, and each is a submission JMAP's
EmailSubmission/get lists for the sender, its emailId the copy in Sent. The refusals, each with the code the RFCs give:
a read-only token (RFC 7628's insufficient_scope JSON naming mail.send, then 535 5.7.8), a From that is not the
mailbox (550 5.7.1), a MAIL FROM that is not it (553 5.7.1), a Mail.td account at MAIL FROM (550 5.7.1, it sends
nothing), a wrong key (535 5.7.8), and AUTH before STARTTLS from a client that is not on loopback (530 5.7.0: the
PROXY header of a trusted balancer names it, on a second server). Every sign-in and refusal is on the audit trail with
door `submission`. Skipped, with the reason, where swaks or msmtp is not installed
(`apt-get install swaks msmtp`; `scripts/bootstrap --test` installs both)."""

import base64
import imaplib
import json
import os
import shutil
import smtplib
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit.line_clients import mailbox_sign_ins, poll, tls_environment
from postern_testkit.mailtd import create_account, domains
from postern_testkit.owner_tokens import owner_token

OWNER = ("submit-owner@example.com", "submit-owner-password-1")
PASSWORD = "correct horse battery staple"
checks = Checks()


def check(condition, what, detail=""):
    """A check whose `detail` (a transcript, a reply) is printed only when it fails."""
    checks(condition, what if condition or not detail else f"{what} ({detail})")


def swaks(server, ca, user, password, sender, to, subject, auth="PLAIN", header=None, port=None, tls=True):
    """Runs swaks once: STARTTLS on the submission port (verifying the certificate against `ca`), `auth` with `user`
    and `password`, MAIL FROM `sender`. (exit status, the transcript)."""
    command = ["swaks", "--server", "127.0.0.1", "--port", str(port or server.submission_port), "--auth", auth,
               "--auth-user", user, "--auth-password", password, "--from", sender, "--to", to,
               "--header", f"Subject: {subject}", "--body", f"{subject}, sent by swaks", "--timeout", "30"]
    if tls:
        command += ["--tls", "--tls-verify", "--tls-ca-path", ca.cert]
    if header:
        command += ["--header", header]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def msmtp(server, ca, user, secret, sender, to, subject, auth="plain", implicit=True):
    """Sends one message with msmtp: on the implicit-TLS port (or STARTTLS on the plain one), verifying the certificate
    against `ca`, `auth` with `user` and `secret` (a password, or an access token for xoauth2 and oauthbearer).
    (exit status, msmtp's output)."""
    port = server.submissions_port if implicit else server.submission_port
    command = ["msmtp", "--host=127.0.0.1", f"--port={port}", "--tls=on",
               f"--tls-starttls={'off' if implicit else 'on'}", f"--tls-trust-file={ca.cert}", f"--auth={auth}",
               f"--user={user}", f"--passwordeval=printf %s '{secret}'", f"--from={sender}", "--debug", to]
    text = f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\n\r\n{subject}, sent by msmtp\r\n"
    done = subprocess.run(command, input=text, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def queued_id(transcript):
    """The submission id of the `250 2.0.0 OK queued as S...` reply in a transcript; None when there is none."""
    for line in transcript.splitlines():
        if "250 2.0.0 OK queued as S" in line:
            return line.rsplit(" ", 1)[1].strip()
    return None


def inbox_subjects(server, address, password):
    """The subjects in `address`'s INBOX over IMAP (STARTTLS is not needed on loopback)."""
    client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    try:
        client.login(address, password)
        _, count = client.select("INBOX", readonly=True)
        if int(count[0]) == 0:
            return []
        _, data = client.fetch("1:*", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        return [part[1].decode().strip().removeprefix("Subject: ") for part in data if isinstance(part, tuple)]
    finally:
        client.logout()


def wait_subject(server, address, password, subject):
    return poll(lambda: subject in inbox_subjects(server, address, password), 30)


def agent_sends(server, ca, ada, bob):
    status, transcript = swaks(server, ca, ada.address, ada.api_key, ada.address, bob.address, "swaks plain")
    sent = queued_id(transcript)
    check(status == 0 and sent is not None and "250-AUTH PLAIN LOGIN OAUTHBEARER XOAUTH2" in transcript
          and "250-DSN" in transcript and "250-STARTTLS" in transcript,
          "swaks --auth PLAIN after STARTTLS sends as the agent", f"{status}: {transcript[-600:]}")
    check(wait_subject(server, bob.address, bob.api_key, "swaks plain"), "bob reads swaks' message over IMAP")
    listed = {s["id"]: s for s in ada.submissions()}
    submission = listed.get(sent)
    check(submission is not None and submission["deliveryStatus"][bob.address]["delivered"] == "yes",
          "the message is a submission JMAP's EmailSubmission/get lists, delivered to bob", f"{submission}")
    if submission is not None:
        _, found = ada.response(ada.call(["Email/get", {"ids": [submission["emailId"]], "properties": ["mailboxIds"]},
                                          "e"]), "e")
        sent_box = ada.mailbox("sent")
        check(found["list"] and sent_box in found["list"][0]["mailboxIds"],
              "its emailId is the copy in Sent", f"{found}")
    status, transcript = msmtp(server, ca, ada.address, ada.api_key, ada.address, bob.address, "msmtp implicit")
    check(status == 0, "msmtp sends on the implicit-TLS port", f"{status}: {transcript[-400:]}")
    check(wait_subject(server, bob.address, bob.api_key, "msmtp implicit"), "bob reads msmtp's message over IMAP")
    status, transcript = msmtp(server, ca, ada.address, ada.api_key, ada.address, bob.address, "msmtp starttls",
                               implicit=False)
    check(status == 0 and wait_subject(server, bob.address, bob.api_key, "msmtp starttls"),
          "msmtp sends with STARTTLS, and bob reads it", f"{status}: {transcript[-400:]}")


def owner_sends(server, ca, bob):
    access, address, _ = owner_token(server, *OWNER, "mail.read mail.send")
    if swaks_has_xoauth2():
        status, transcript = swaks(server, ca, address, access, address, bob.address, "xoauth2", auth="XOAUTH2")
        client = "swaks --auth XOAUTH2"
    else:
        status, transcript = msmtp(server, ca, address, access, address, bob.address, "xoauth2", auth="xoauth2")
        client = "msmtp --auth=xoauth2 (this swaks has no XOAUTH2)"
    check(status == 0 and wait_subject(server, bob.address, bob.api_key, "xoauth2"),
          f"{client} with a mail.send token sends as the owner's inbox", f"{status}: {transcript[-400:]}")
    status, transcript = msmtp(server, ca, address, access, address, bob.address, "oauthbearer", auth="oauthbearer")
    check(status == 0 and wait_subject(server, bob.address, bob.api_key, "oauthbearer"),
          "msmtp --auth=oauthbearer sends as the owner's inbox", f"{status}: {transcript[-400:]}")
    read_only, address, _ = owner_token(server, *OWNER, "mail.read")
    challenge = base64.b64encode(b'{"status":"insufficient_scope","scope":"mail.send"}').decode()
    if swaks_has_xoauth2():
        status, transcript = swaks(server, ca, address, read_only, address, bob.address, "refused", auth="XOAUTH2")
    else:
        status, transcript = msmtp(server, ca, address, read_only, address, bob.address, "refused", auth="xoauth2")
    check(status != 0 and "535" in transcript,
          "a read-only token is refused at AUTH", f"{status}: {transcript[-400:]}")
    # What the server says, line by line (the clients do not all print the challenge): RFC 7628's JSON, then 535.
    with smtplib.SMTP("127.0.0.1", server.submission_port, timeout=30) as smtp:
        smtp.ehlo()
        xoauth2 = base64.b64encode(f"user={address}\x01auth=Bearer {read_only}\x01\x01".encode()).decode()
        first = smtp.docmd("AUTH", "XOAUTH2 " + xoauth2)
        second = smtp.docmd("")
    check(first == (334, challenge.encode()) and second == (535, b"5.7.8 Authentication credentials invalid"),
          "the read-only token: 334 with insufficient_scope naming mail.send, then 535 5.7.8", f"{first}, {second}")


def refusals(server, ca, ada, bob):
    status, transcript = swaks(server, ca, ada.address, ada.api_key, ada.address, bob.address, "forged",
                               header="From: someone@example.com")
    check(status != 0 and f"550 5.7.1 The From of the email must be {ada.address}." in transcript,
          "a From that is not the mailbox: 550 5.7.1", f"{status}: {transcript[-400:]}")
    status, transcript = swaks(server, ca, ada.address, ada.api_key, bob.address, bob.address, "other sender")
    check(status != 0 and f"553 5.7.1 This session sends as {ada.address} only" in transcript,
          "a MAIL FROM that is not the mailbox: 553 5.7.1", f"{status}: {transcript[-400:]}")
    account = "submit-mailtd@" + domains(server)[0]
    create_account(server, account, password=PASSWORD)
    status, transcript = swaks(server, ca, account, PASSWORD, account, bob.address, "read-only account")
    check(status != 0 and "235 2.7.0 Authentication successful" in transcript
          and f"550 5.7.1 {account} is a Mail.td account" in transcript,
          "a Mail.td account signs in and is refused at MAIL FROM with 550 5.7.1 saying why", f"{transcript[-500:]}")
    status, transcript = swaks(server, ca, ada.address, "ak_wrong", ada.address, bob.address, "wrong key")
    check(status != 0 and "535 5.7.8" in transcript, "a wrong key: 535 5.7.8", f"{transcript[-300:]}")


def plaintext_off_loopback(env):
    """A second server whose submission listener takes the PROXY header from 127.0.0.1 (a trusted balancer): a client
    the header names at 192.0.2.44 is not on loopback, so AUTH before STARTTLS is 530 5.7.0 and EHLO offers no AUTH."""
    settings = env | {"POSTERN_TRUSTED_PROXIES": "127.0.0.1/32", "POSTERN_SUBMISSION_PROXY_PROTOCOL": "on"}
    with postern(env=settings) as server:
        with socket.create_connection(("127.0.0.1", server.submission_port), timeout=30) as raw:
            raw.sendall(f"PROXY TCP4 192.0.2.44 127.0.0.1 40000 {server.submission_port}\r\n".encode())
            lines = exchange(raw, [b"EHLO remote.test\r\n", b"AUTH PLAIN AGFkYQBrZXk=\r\n",
                                   b"MAIL FROM:<ada@example.com>\r\n", b"QUIT\r\n"])
    text = "\n".join(lines)
    check("AUTH" not in text.split("530")[0] and "STARTTLS" in text,
          "off loopback, EHLO offers STARTTLS and no AUTH", f"{lines}")
    check("530 5.7.0 Must issue a STARTTLS command first" in lines
          and "530 5.7.0 Authentication required" in lines,
          "off loopback, AUTH before STARTTLS is 530 5.7.0", f"{lines}")


def exchange(raw, commands):
    """Sends each command after the reply before it is whole; every reply line, the greeting's first."""
    reader = raw.makefile("rb")
    lines = []

    def reply():
        while True:
            line = reader.readline().decode().rstrip("\r\n")
            lines.append(line)
            if len(line) < 4 or line[3] != "-":
                return

    reply()
    for command in commands:
        raw.sendall(command)
        reply()
    return lines


def swaks_has_xoauth2():
    """Whether this swaks has XOAUTH2 (20240103.0 and later)."""
    return "XOAUTH2" in subprocess.run(["swaks", "--help"], capture_output=True, text=True).stdout


def main():
    missing = [tool for tool in ("swaks", "msmtp") if shutil.which(tool) is None]
    if missing:
        print(f"test_submission_clients: SKIPPED: {' and '.join(missing)} not installed "
              "(apt-get install swaks msmtp; scripts/bootstrap --test)")
        return
    with tls_environment("postern-submission-tls-") as (env, ca):
        with postern(env=env, owners=[OWNER]) as server:
            check(server.submission_port is not None and server.submissions_port is not None,
                  "serve's JSON line names the submission listeners")
            ada = JMAPAgent(server, "ada-submit")
            bob = JMAPAgent(server, "bob-submit")
            started = time.monotonic()
            agent_sends(server, ca, ada, bob)
            owner_sends(server, ca, bob)
            refusals(server, ca, ada, bob)
            trail = [(e["action"], json.dumps(e.get("details"))) for e in mailbox_sign_ins(server)]
            check(any(a == "mailbox.signin" and '"submission"' in d for a, d in trail)
                  and any(a == "mailbox.signin_failed" and '"submission"' in d for a, d in trail),
                  "submission sign-ins and refusals are on the audit trail, door submission", f"{trail[-4:]}")
            print(f"test_submission_clients: clients done in {time.monotonic() - started:.1f} s")
        plaintext_off_loopback(env)
    checks.finish("test_submission_clients")


if __name__ == "__main__":
    main()
