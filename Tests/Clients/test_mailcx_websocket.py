"""mail.cx's /api/ws (issue 55) against a real `postern serve --profile test`, with two independent clients from
PyPI: `websockets` (asyncio) and `websocket-client` (blocking), plus raw bytes for the frame rules no client breaks.
Mail goes in over SMTP (smtplib); each `new_email` id is read back through the Mail.td messages API."""

import asyncio
import base64
import hashlib
import hmac
import json
import os
import smtplib
import socket
import struct
import sys
import time
from email.message import EmailMessage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, ".build", "client-sdks", "websockets"))  # scripts/client-tests installs it
import websocket  # websocket-client
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from postern_testkit import Checks, http, postern
from postern_testkit.mailtd import create_account, domains, messages, pro_login, pro_token

check = Checks()
PRO = ("pro@example.com", "pro-password-1")
# How long a synchronous client waits for an answer. The answers come at once; the bound only has to outlast a busy
# machine (make test runs this beside the Swift suites), so it is generous, and what is checked is the answer.
RECEIVE_SECONDS = 30


def send(server, to, subject, text="hello"):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "App <app@example.com>", to, subject
    message.set_content(text)
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as client:
        client.send_message(message)


def ws_url(server):
    return "ws" + server[len("http"):] + "/api/ws"


def tampered(token):
    """`token` with one character of its signature changed, well inside it: replacing its last characters would keep
    the signature whenever they already were the replacement (about 1 token in 256 ended in "AA")."""
    head, signature = token.rsplit(".", 1)
    at = len(signature) // 2
    return f"{head}.{signature[:at]}{'B' if signature[at] == 'A' else 'A'}{signature[at + 1:]}"


def resigned(server, token, iat, exp):
    """`token` with its `iat` and `exp` moved, signed again with the server's own HS256 key (the data directory's
    keys/<kid>.hmac): the token the server would have minted at `iat`."""
    def unb64(text):
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    header_text, payload_text, _ = token.split(".")
    claims = dict(json.loads(unb64(payload_text)), iat=iat, exp=exp)
    with open(os.path.join(server.data, "keys", json.loads(unb64(header_text))["kid"] + ".hmac")) as f:
        secret = bytes.fromhex(f.read().strip())
    signing = header_text + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
    return signing + "." + b64(hmac.new(secret, signing.encode(), hashlib.sha256).digest())


def expired_token_refused(server, token):
    """The same token re-signed: with times still valid it authenticates (the re-signing is sound); expired a day
    ago (past the 30 s leeway) it is `invalid_token`."""
    now = int(time.time())
    client = websocket.create_connection(ws_url(server), timeout=5)
    client.send(json.dumps({"type": "auth", "token": resigned(server, token, now - 60, now + 3600)}))
    check(json.loads(client.recv()) == {"type": "auth_ok"}, "websocket-client: the token re-signed, still valid: auth_ok")
    client.close()
    got, opcode = refused(server, json.dumps({"type": "auth", "token": resigned(server, token, now - 8 * 86400,
                                                                                  now - 86400)}))
    check(got == {"error": "invalid_token"} and opcode == websocket.ABNF.OPCODE_CLOSE,
          f"websocket-client: an expired mailbox JWT → invalid_token ({got})")


def refused(server, token_message):
    """What websocket-client reads after sending `token_message`: the error, then the close code."""
    client = websocket.create_connection(ws_url(server), timeout=RECEIVE_SECONDS)
    client.send(token_message)
    error = json.loads(client.recv())
    opcode, _ = client.recv_data_frame(True)
    client.close()
    return error, opcode


def admitted(server, auth):
    """A socket that sent `auth`, and its first answer: retried while the answer is too_many_connections, for up to
    20 s, so that a place a closed socket gives back counts once the server has seen the close (the close reaches it
    when the machine's load lets it; a place never given back still fails the caller's check)."""
    deadline = time.monotonic() + 20
    while True:
        client = websocket.create_connection(ws_url(server), timeout=RECEIVE_SECONDS)
        client.send(auth)
        answer = json.loads(client.recv())
        if answer != {"error": "too_many_connections"} or time.monotonic() > deadline:
            return client, answer
        client.close()
        time.sleep(0.1)


async def live_events(server, account):
    domain_address, token = account["address"], account["token"]
    async with connect(ws_url(server)) as socket_:
        await socket_.send(json.dumps({"type": "auth", "token": token}))
        check(json.loads(await socket_.recv()) == {"type": "auth_ok"}, "websockets: auth_ok")
        started = time.monotonic()
        # A long text with multi-byte characters (2, 3 and 4 UTF-8 bytes) all along, so the cut falls among them.
        send(server, domain_address, "Your code is 424242", "Code: 424242\n" + "Grüße aus 東京 😀 " * 30)
        # Pushed as the delivery is stored, or never (nothing else sends on this socket): the check is that it comes
        # within the wait; how soon is printed, not asserted (a busy machine's delay is its load's).
        event = json.loads(await asyncio.wait_for(socket_.recv(), 30))
        check(event["type"] == "new_email" and event["subject"] == "Your code is 424242"
              and event["account_id"] == account["id"] and event["address"] == domain_address
              and "424242" in event["preview_text"] and event["sender"] == "app@example.com",
              f"new_email pushed after SMTP ({time.monotonic() - started:.2f} s): subject, preview, sender, account "
              "and address")
        check(set(event) == {"type", "id", "sender", "from", "subject", "preview_text", "size", "created_at",
                             "account_id", "address"}, "new_email: exactly mail.cx's fields")
        listed = messages(server, account["id"], token)
        check(event["id"] in [m["id"] for m in listed], "its id reads through the Mail.td messages API")
        listed_preview = next((m["preview_text"] for m in listed if m["id"] == event["id"]), "")
        check(len(event["preview_text"]) <= 100 and len(listed_preview) > 100
              and event["preview_text"] == listed_preview[:100].rstrip(),
              f"new_email: preview_text the list's first 100 characters ({len(event['preview_text'])} of "
              f"{len(listed_preview)})")
        send(server, domain_address, "first")
        send(server, domain_address, "second")
        subjects = [json.loads(await asyncio.wait_for(socket_.recv(), 5))["subject"] for _ in range(2)]
        check(subjects == ["first", "second"], f"two same-second messages in arrival order ({subjects})")
        pong = await socket_.ping(b"x")
        await asyncio.wait_for(pong, 5)
        check(True, "websockets: a ping is answered")
        # Revoked mid-stream: a password reset moves the token epoch on; the next event closes the socket with 1008.
        status, _, _ = http(server, "PUT", f"/api/accounts/{account['id']}/reset-password",
                            {"password": "another-secret-2"}, bearer=token)
        check(status == 200, f"password reset ({status})")
        send(server, domain_address, "after the reset")
        try:
            await asyncio.wait_for(socket_.recv(), 5)
            check(False, "revoked: the socket closes")
        except ConnectionClosed as closed:
            check(closed.rcvd is not None and closed.rcvd.code == 1008, f"revoked token: closed with 1008 ({closed})")


def raw(server, request):
    host, port = server[len("http://"):].split(":")
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    return s, head.decode()


def handshake(extra=""):
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET /api/ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n")


def frame(opcode, payload=b"", fin=True, masked=True, rsv=0):
    first = (0x80 if fin else 0) | rsv | opcode
    length = len(payload)
    head = bytes([first]) + (bytes([(0x80 if masked else 0) | length]) if length < 126 else
                             bytes([(0x80 if masked else 0) | 126]) + struct.pack(">H", length) if length < 65536 else
                             bytes([(0x80 if masked else 0) | 127]) + struct.pack(">Q", length))
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_frame(s):
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data
    first, second = exactly(2)
    length = second & 0x7F
    length = struct.unpack(">H", exactly(2))[0] if length == 126 else struct.unpack(">Q", exactly(8))[0] \
        if length == 127 else length
    return first & 0x0F, exactly(length)


def closed_by_server(s):
    try:
        while s.recv(4096):
            pass
        return True
    except OSError:
        return False


def frame_rules(server):
    for name, data, code in [
        ("unmasked frame", frame(1, b"x", masked=False), 1002), ("RSV1 set", frame(1, b"x", rsv=0x40), 1002),
        ("a 126-byte ping", frame(9, b"p" * 126), 1002), ("a fragmented ping", frame(9, b"p", fin=False), 1002),
        ("invalid UTF-8", frame(1, b"\xc0\x80"), 1007), ("a 2 MiB message", frame(2, b"\0" * (2 << 20)), 1009),
    ]:
        s, head = raw(server, handshake())
        s.sendall(data)
        opcode, payload = read_frame(s)
        got = struct.unpack(">H", payload[:2])[0] if opcode == 8 and len(payload) >= 2 else None
        check(head.startswith("HTTP/1.1 101") and got == code and closed_by_server(s), f"{name}: close {code}")
    s, _ = raw(server, handshake())
    s.sendall(frame(9, b"hi"))
    check(read_frame(s) == (10, b"hi"), "raw: ping answered with pong, same payload")
    s.sendall(frame(8, struct.pack(">H", 1000) + b"bye"))
    check(read_frame(s) == (8, struct.pack(">H", 1000)) and closed_by_server(s),
          "raw: close echoed with its code, then TCP closed by the server")
    for name, request, status in [
        ("foreign Origin", handshake("Origin: https://evil.example\r\n"), "403"),
        ("no key", handshake().replace("Sec-WebSocket-Key", "X-Key"), "400"),
        ("version 8", handshake().replace("Version: 13", "Version: 8"), "426"),
    ]:
        _, head = raw(server, request)
        check(head.split(" ")[1] == status and (status != "426" or "Sec-WebSocket-Version: 13" in head),
              f"{name}: {status}")


def main():
    with postern(env={"POSTERN_MAILBOX_POW_REQUIRED": "off"}, pro_users=[PRO]) as server:
        domain = domains(server)[0]
        account = create_account(server, "ws-user@" + domain, password="secret-password-1")
        asyncio.run(live_events(server, account))
        account = create_account(server, "ws-other@" + domain, password="secret-password-1")
        auth = json.dumps({"type": "auth", "token": account["token"]})
        pro_jwt = pro_login(server, *PRO)
        api_token = pro_token(server, pro_jwt, "websocket")["token"]
        status, _, _ = http(server, "GET", "/api/user/me", bearer=api_token)
        check(api_token.startswith("tm_pro_") and status == 200, f"a live tm_pro_ API token ({status})")
        for name, message, error in [
            ("bad JSON", "{not json", "invalid_auth_message"), ("wrong type", '{"type":"hello"}', "invalid_auth_message"),
            ("a Pro JWT", json.dumps({"type": "auth", "token": pro_jwt}), "invalid_token"),
            ("a Pro API token", json.dumps({"type": "auth", "token": api_token}), "invalid_token"),
            ("a tampered token", json.dumps({"type": "auth", "token": tampered(account["token"])}), "invalid_token"),
        ]:
            got, opcode = refused(server, message)
            check(got == {"error": error} and opcode == websocket.ABNF.OPCODE_CLOSE, f"websocket-client: {name} → {error}")
        expired_token_refused(server, account["token"])
        open_ = [admitted(server, auth) for _ in range(3)]  # once the refused sockets' places are back
        check(all(answer == {"type": "auth_ok"} for _, answer in open_), "three sockets for one account")
        got, _ = refused(server, auth)
        check(got == {"error": "too_many_connections"}, f"the fourth: too_many_connections ({got})")
        open_[0][0].close()
        client, answer = admitted(server, auth)
        check(answer == {"type": "auth_ok"}, "a closed socket gives its place back")
        frame_rules(server)
        # Not before the 10 s the socket has to authenticate; how much after is the machine's load.
        silent = websocket.create_connection(ws_url(server), timeout=40)
        started = time.monotonic()
        opcode, data = silent.recv_data()
        check(opcode == websocket.ABNF.OPCODE_CLOSE and struct.unpack(">H", data[:2])[0] == 1008
              and 9 < time.monotonic() - started, "no auth within 10 s: closed with 1008")
    check.finish("test_mailcx_websocket")


if __name__ == "__main__":
    main()
