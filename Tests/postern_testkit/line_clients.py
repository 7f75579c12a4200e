"""What the tests of the line protocols (IMAP, POP3) share: a raw exchange on a new connection, for the bad inputs no
client library sends, and a poll for what another door makes true. Standard library only.

    received = raw_exchange(server.pop3_port, [b"FROB\r\n"])
    check(poll(lambda: len(messages(server, account, token)) == 3), "three messages listed")
"""

import socket
import time


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
