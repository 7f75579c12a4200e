"""What the tests of the line protocols (IMAP, POP3) share: a raw exchange on a new connection, for the bad inputs no
client library sends, and a poll for what another door makes true. Standard library only.

    received = raw_exchange(server.pop3_port, [b"FROB\r\n"])
    check(poll(lambda: len(messages(server, account, token)) == 3), "three messages listed")
"""

import contextlib
import json
import os
import shutil
import smtplib
import socket
import subprocess
import tempfile
import time

from .certificates import LocalCA


def raw_exchange(port, lines, quiet=2):
    """Sends `lines` on a new loopback connection to `port` (after reading the greeting) and returns everything the
    server wrote until it closed or was quiet for `quiet` seconds."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.recv(4096)
        for line in lines:
            connection.sendall(line)
        connection.settimeout(quiet)
        received = b""
        try:
            while chunk := connection.recv(65536):
                received += chunk
        except socket.timeout:
            pass
        return received


def plaintext_answer(port, line):
    """What an implicit-TLS port (IMAPS, POP3S) answers `line` sent in plaintext at once, with no handshake: whatever it
    wrote before it closed or 10 seconds passed (b"" for nothing)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as plain:
        plain.sendall(line)
        try:
            return plain.recv(4096)
        except (socket.timeout, ConnectionResetError):
            return b""


def poll(test, seconds=30):
    """Calls `test` every 50 ms until it is true (then True) or `seconds` pass (then False): a busy machine gets the
    time it needs, and a fast one does not wait."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if test():
            return True
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def tls_environment(prefix):
    """A local CA and a certificate for localhost and 127.0.0.1 in a temporary directory, removed afterwards: yields
    (the server's environment naming them as SMTP's pair, which IMAP and POP3 present too, the CA)."""
    directory = tempfile.mkdtemp(prefix=prefix)
    try:
        ca = LocalCA(directory)
        certificate, key = ca.issue("localhost", ips=["127.0.0.1"])
        yield {"POSTERN_MAILBOX_POW_REQUIRED": "off", "POSTERN_SMTP_TLS_CERT": certificate,
               "POSTERN_SMTP_TLS_KEY": key}, ca
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def deliver(server, address, subject, body="hello"):
    """One message to `address` over the server's SMTP port."""
    text = f"From: App <app@example.com>\r\nTo: {address}\r\nSubject: {subject}\r\n\r\n{body}\r\n"
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as client:
        client.sendmail("app@example.com", [address], text.encode())


def mailbox_sign_ins(server):
    """The audit trail's `mailbox.*` events (sign-ins and refusals), oldest first, as `postern audit --json` writes
    them."""
    out = subprocess.run([os.environ["POSTERN_BIN"], "audit", "--data-dir", server.data, "--json"], check=True,
                         capture_output=True, text=True).stdout
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return [e for e in events if e["action"].startswith("mailbox.")]
