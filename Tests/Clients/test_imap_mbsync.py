"""Debian's isync (`mbsync`) against Postern's IMAP (issue 70): a Mail.td account's INBOX of 1,000 messages synced to
a local Maildir, then nothing new on the second run, then exactly the 10 messages deleted through the Mail.td API gone
from the Maildir on the third. mbsync keeps its own state (UIDVALIDITY, the highest UID seen, each message's UID), so
this is what a backup made with it relies on: UIDs that never go backwards, a UIDVALIDITY that holds, a UID FETCH of
the new range that answers only new messages, and expunges that reach every door.

Skips with a message when `mbsync` is not installed (`scripts/bootstrap --test` installs isync)."""

import os
import shutil
import smtplib
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from postern_testkit.mailtd import create_account, domains, messages

PASSWORD = "correct horse battery staple"
MESSAGES = 1000
DELETED = 10
SENDERS = 4
check = Checks()


def deliver_all(server, address):
    """MESSAGES small messages over SMTP from SENDERS kept connections (a few seconds on the debug build)."""
    numbers, lock, failures = list(range(MESSAGES)), threading.Lock(), []

    def sender():
        try:
            with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=60) as client:
                while True:
                    with lock:
                        if not numbers:
                            return
                        number = numbers.pop()
                    text = (f"From: App <app@example.com>\r\nTo: {address}\r\nSubject: backup {number}\r\n"
                            f"Message-ID: <backup-{number}@example.com>\r\n\r\nmessage {number}\r\n")
                    client.sendmail("app@example.com", [address], text.encode())
        except Exception as error:  # reported below; the other senders go on
            failures.append(repr(error))

    threads = [threading.Thread(target=sender, daemon=True) for _ in range(SENDERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    check(not failures, f"{MESSAGES} messages delivered over SMTP ({failures[:1]})")


def mbsync_config(directory, server, address):
    """An mbsync configuration: the INBOX pulled into a Maildir under `directory`, vanished messages expunged."""
    maildir = os.path.join(directory, "Maildir")
    os.makedirs(maildir)
    path = os.path.join(directory, "mbsyncrc")
    with open(path, "w") as config:
        config.write(f"""IMAPAccount postern
Host 127.0.0.1
Port {server.imap_port}
User "{address}"
Pass "{PASSWORD}"
SSLType None
AuthMechs LOGIN
Timeout 120

IMAPStore postern-remote
Account postern

MaildirStore local
Path {maildir}/
Inbox {maildir}/INBOX

Channel inbox
Far :postern-remote:INBOX
Near :local:INBOX
Sync Pull
Create Near
Expunge Near
SyncState *
""")
    return path, os.path.join(maildir, "INBOX")


def synced(config, inbox):
    """Runs `mbsync -a` once; (its exit status, its output, the subjects of the messages in the Maildir, one per
    file)."""
    run = subprocess.run(["mbsync", "-c", config, "-a"], capture_output=True, text=True, timeout=600)
    subjects = []
    for part in ("cur", "new"):
        folder = os.path.join(inbox, part)
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            with open(os.path.join(folder, name), "rb") as file:
                subjects += [line[9:].strip().decode() for line in file if line.startswith(b"Subject: ")][:1]
    return run.returncode, (run.stdout + run.stderr).strip(), subjects


def main():
    if shutil.which("mbsync") is None:
        print("test_imap_mbsync: SKIPPED: mbsync is not installed (apt-get install isync; scripts/bootstrap --test)")
        return
    directory = tempfile.mkdtemp(prefix="postern-mbsync-")
    try:
        # The test profile keeps the newest 500 messages (Mailpit's retention): off, for the 1,000.
        with postern(env={"POSTERN_MAILBOX_POW_REQUIRED": "off", "POSTERN_MAIL_MAX_MESSAGES": "off"}) as server:
            address = "backup@" + domains(server)[0]
            account = create_account(server, address, password=PASSWORD)["id"]
            token = http(server, "POST", "/api/token", {"address": address, "password": PASSWORD})[2]["token"]
            deliver_all(server, address)

            config, inbox = mbsync_config(directory, server, address)
            everything = sorted(f"backup {n}" for n in range(MESSAGES))
            code, said, first = synced(config, inbox)
            check(code == 0 and sorted(first) == everything,
                  f"first mbsync: the {MESSAGES} messages in the Maildir, each once ({code}, {len(first)}: {said[-500:]})")
            code, said, second = synced(config, inbox)
            check(code == 0 and sorted(second) == everything,
                  f"second mbsync: nothing new, still {MESSAGES} ({code}, {len(second)}: {said[-500:]})")

            doomed = messages(server, account, token)[:DELETED]
            check(len(doomed) == DELETED, f"{DELETED} messages listed to delete ({len(doomed)})")
            for message in doomed:
                status, _, _ = http(server, "DELETE", f"/api/accounts/{account}/messages/{message['id']}", bearer=token)
                check(status == 204, f"DELETE a message through the Mail.td API: 204 ({status})")
            gone = {m["subject"] for m in doomed}
            code, said, third = synced(config, inbox)
            check(code == 0 and sorted(third) == sorted(set(everything) - gone),
                  f"third mbsync: exactly the {DELETED} deleted ones gone ({code}, {len(third)}, "
                  f"gone {sorted(set(everything) - set(third))[:12]}: {said[-500:]})")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    check.finish("test_imap_mbsync")


if __name__ == "__main__":
    main()
