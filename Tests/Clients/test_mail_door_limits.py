"""Review 7's findings on the mail doors, measured on a real `postern serve --profile test` as the review measured them:
a hundred unauthenticated IMAP connections each announcing a 32 MiB literal (from seven loopback addresses, past the
per-client cap) are refused before a byte of it is sent and leave the server's peak RSS within 64 MiB; fifty pipelined
`FETCH 1:* BODY.PEEK[]` over a 4 MB mailbox that the client does not read leave it within 64 MiB too, and every one of
the fifty answers arrives whole once the client reads; a password reset ends the sessions it opened (IDLE too) with
`* BYE` naming why, and after the account's deletion an old session never writes into the account made again at its
address; two hundred `LOGIN`s naming a new user each, with rate limits
on, reach the password hash no faster than `POST /api/token`'s bucket lets one client (`NO [UNAVAILABLE]` past it)
while another client signs in."""

import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from postern_testkit.line_clients import deliver, poll
from postern_testkit.mailtd import create_account, domains

PASSWORD = "correct horse battery staple"
BOUND_KIB = 64 * 1024
check = Checks()


def peak_rss_kib(pid):
    """The highest resident set size process `pid` has had, in KiB (VmHWM)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


def settle(pid, seconds=120):
    """Waits until process `pid` stops using CPU (two half-second samples without a tick's change), so that a measure
    after it sees everything the process would do with what it was sent, on a slow machine too."""
    def ticks():
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return int(fields[11]) + int(fields[12])
    last, quiet, deadline = ticks(), 0, time.monotonic() + seconds
    while quiet < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
        now = ticks()
        quiet = quiet + 1 if now - last <= 1 else 0
        last = now


def connect(port, source="127.0.0.1"):
    """An IMAP connection from `source` (a loopback address), its greeting read."""
    client = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    read_until(client, b"\r\n")
    return client


def read_until(client, end, limit=1 << 30):
    """What `client` reads until the bytes end with `end` (or the server closes)."""
    data = bytearray()
    while not data.endswith(end) and len(data) < limit:
        chunk = client.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    return bytes(data)


def literal_announcements(server):
    before = peak_rss_kib(server.process.pid)
    clients, answers = [], []
    for index in range(100):
        client = connect(server.imap_port, f"127.0.0.{2 + index % 7}")
        client.sendall(f"a{index} LOGIN {{33554432}}\r\n".encode())
        answers.append(read_until(client, b"\r\n"))
        clients.append(client)
    check(all(b"BAD [TOOBIG]" in a for a in answers),
          f"a 32 MiB literal before sign-in is refused before it is sent ({answers[0]!r})")
    # What an attacker sends anyway is read as commands and refused, never kept as a literal.
    for client in clients:
        try:
            client.sendall(b"x" * (1 << 20))
        except OSError:
            pass
    settle(server.process.pid)
    grown = peak_rss_kib(server.process.pid) - before
    check(grown < BOUND_KIB, f"100 connections announcing 32 MiB: peak RSS +{grown} KiB (bound {BOUND_KIB})")
    for client in clients:
        client.close()
    check(http(server, "GET", "/healthz")[0] == 200, "the server serves after the announcements")


def unread_fetches(server, address):
    for index in range(8):
        deliver(server, address, f"large {index}", body=("0123456789" * 50 + "\r\n") * 1000)  # ~500 kB each
    client = connect(server.imap_port)
    client.sendall(f'l LOGIN "{address}" "{PASSWORD}"\r\ns SELECT INBOX\r\n'.encode())
    selected = read_until(client, b"s OK [READ-WRITE] SELECT completed\r\n", limit=1 << 20)
    check(b"* 8 EXISTS" in selected, f"the eight messages are in INBOX ({selected[-120:]!r})")
    before = peak_rss_kib(server.process.pid)
    client.sendall(b"".join(f"f{n} FETCH 1:* BODY.PEEK[]\r\n".encode() for n in range(50)))
    settle(server.process.pid)  # the server works as far as the unread socket lets it
    grown = peak_rss_kib(server.process.pid) - before
    check(grown < BOUND_KIB, f"50 unread FETCH 1:* BODY.PEEK[] over 4 MB: peak RSS +{grown} KiB (bound {BOUND_KIB})")
    received = read_until(client, b"f49 OK FETCH completed\r\n")
    complete = sum(received.count(f"f{n} OK FETCH completed\r\n".encode()) for n in range(50))
    check(complete == 50 and received.count(b"* 8 FETCH") == 50,
          f"read at last, every answer arrives whole: {complete} of 50 completed, "
          f"{received.count(b'* 8 FETCH')} last messages")
    client.close()


def new_usernames(env, address_of):
    """Eight instances share the buckets (POSTERN_INSTANCES=8): this one's is Mail.td's public rate over eight, one
    attempt a second, so that the bound below holds however fast or slow the machine hashes."""
    with postern(env={**env, "POSTERN_RATE_LIMITS": "on", "POSTERN_INSTANCES": "8"}) as server:
        address = address_of(server)
        create_account(server, address, password=PASSWORD)
        slowed = 0
        started = time.monotonic()
        client = connect(server.imap_port)
        for index in range(200):
            client.sendall(f"a{index} LOGIN user{index}@{address.split('@')[1]} wrong-password\r\n".encode())
            answer = read_until(client, b"\r\n")
            slowed += b"NO [UNAVAILABLE]" in answer
        client.close()
        seconds = time.monotonic() - started
        checked = 200 - slowed
        check(checked <= seconds + 2,
              f"200 LOGINs naming new users: {checked} reached the password check in {seconds:.1f} s, no more than "
              f"the bucket's one a second; {slowed} answered NO [UNAVAILABLE]")
        other = connect(server.imap_port, "127.0.0.9")
        other.sendall(f'b1 LOGIN "{address}" "{PASSWORD}"\r\n'.encode())
        check(b"b1 OK" in read_until(other, b"\r\n"), "another client signs in meanwhile")
        other.close()


def signed_in(server, address, password, source="127.0.0.1"):
    """An IMAP connection signed in as `address` with INBOX selected."""
    client = connect(server.imap_port, source)
    client.sendall(f'l LOGIN "{address}" "{password}"\r\ns SELECT INBOX\r\n'.encode())
    selected = read_until(client, b"\r\n", limit=1 << 20)
    while b"s OK" not in selected and b"s NO" not in selected and selected:
        selected += read_until(client, b"\r\n", limit=1 << 20)
    check(b"s OK" in selected, f"{address} signed in and selected INBOX")
    return client


def token(server, address, password):
    return http(server, "POST", "/api/token", {"address": address, "password": password})[2]["token"]


def sessions_end(server, address):
    """A password reset ends the sessions it opened, idle or not; the account's deletion ends them before a write, and
    none of them reaches the account made again at the address."""
    create_account(server, address, password=PASSWORD)
    deliver(server, address, "kept")
    account = http(server, "POST", "/api/token", {"address": address, "password": PASSWORD})[2]
    busy, idle = signed_in(server, address, PASSWORD), signed_in(server, address, PASSWORD)
    idle.sendall(b"i IDLE\r\n")
    check(read_until(idle, b"\r\n").startswith(b"+"), "IDLE begins")
    status = http(server, "PUT", f"/api/accounts/{account['id']}/reset-password", {"password": PASSWORD + "!"},
                  bearer=account["token"])[0]
    check(status == 200, f"the password is reset ({status})")
    bye = read_until(idle, b"\r\n")
    check(b"* BYE Signed out: the password was changed" in bye, f"the idle session is told why it ends ({bye!r})")
    time.sleep(2.5)  # a command that only reads checks the standing at most every 2 s
    busy.sendall(b"n NOOP\r\n")
    bye = read_until(busy, b"\r\n")
    check(b"* BYE Signed out: the password was changed" in bye, f"a NOOP after the reset is answered BYE ({bye!r})")
    busy.close()
    idle.close()

    old = signed_in(server, address, PASSWORD + "!")
    renewed = token(server, address, PASSWORD + "!")
    check(http(server, "DELETE", f"/api/accounts/{account['id']}", bearer=renewed)[0] == 204, "the account is deleted")
    create_account(server, address, password="another owner's password")
    deliver(server, address, "the new owner's")
    old.sendall(b"w STORE 1:* +FLAGS (\\Deleted)\r\nx EXPUNGE\r\n")
    answer = read_until(old, b"\r\n")
    check(b"* BYE Signed out: the account was deleted" in answer, f"the old session's write is answered BYE ({answer!r})")
    old.close()
    new = signed_in(server, address, "another owner's password")
    new.sendall(b"f FETCH 1:* (FLAGS)\r\n")
    flags = read_until(new, b"f OK FETCH completed\r\n")
    check(b"\\Deleted" not in flags and b"* 1 FETCH" in flags, f"the new account's mail is untouched ({flags!r})")
    new.close()


def main():
    env = {"POSTERN_RATE_LIMITS": "off", "POSTERN_MAILBOX_POW_REQUIRED": "off"}
    with postern(env=env) as server:
        address = "door-limits@" + domains(server)[0]
        create_account(server, address, password=PASSWORD)
        literal_announcements(server)
        unread_fetches(server, address)
        sessions_end(server, "door-ends@" + domains(server)[0])
    new_usernames(env, lambda server: "door-slowed@" + domains(server)[0])
    check.finish("test_mail_door_limits")


if __name__ == "__main__":
    main()
