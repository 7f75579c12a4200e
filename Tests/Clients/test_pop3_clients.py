"""POP3 as a real client speaks it (issue 70): Python's poplib against `postern serve --profile test` (POP3 on, on a
free loopback port), signed in with a Mail.td account's address and password (USER/PASS and AUTH PLAIN) and an agent
inbox's address and API key. One store behind every door: UIDL is the IMAP UID's stable form (UIDVALIDITY.UID, as
IMAP's SELECT and UID FETCH give them) and the same in the next session; TOP gives the header and the first lines;
DELE then RSET keeps the message; DELE then QUIT removes it for every door (the Mail.td list loses it, its bytes
leave the quota, JMAP's Email/changes has it destroyed); STLS and POP3_SSL on the POP3S port verify the configured
certificate. An owner's inbox
through AUTH OAUTHBEARER and XOAUTH2 (RFC 7628, RFC 5034) with access tokens from Postern's own /oauth/token (poplib
has no AUTH, so its line calls carry it): CAPA's SASL line lists them, a token signs in with or without an initial
response, and a token of another resource, a mail.send-only token and a forged one get RFC 7628's error JSON, then
-ERR [AUTH]; each on the audit trail, door pop3. Then the bad inputs: a wrong password, an unknown command, an
over-long line, commands before sign-in, APOP; each a -ERR with a reason, and the server serves the next client."""

import base64
import imaplib
import json
import os
import poplib
import ssl
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit import line_clients
from postern_testkit.line_clients import poll
from postern_testkit.mailtd import create_account, domains, messages
from postern_testkit.owner_tokens import owner_token, refused_tokens

PASSWORD = "correct horse battery staple"
OWNER = ("pop3-owner@example.com", "pop3-owner-password-1")
check = Checks()


def deliver(server, address, subject, body="line one\r\nline two\r\nline three"):
    line_clients.deliver(server, address, subject, body)


def wait_for(what, test, seconds=30):
    """Polls `test` until it is true or `seconds` pass (a busy machine gets the time it needs)."""
    return poll(test, seconds) or check(False, what + f" (not within {seconds} s)")


def signed_in(server, address, password=PASSWORD):
    client = poplib.POP3("127.0.0.1", server.pop3_port, timeout=30)
    client.user(address)
    client.pass_(password)
    return client


def uidls(client):
    """{number: uidl} of the maildrop."""
    return {int(n): u.decode() for n, u in (line.split() for line in client.uidl()[1])}


def imap_uidls(server, address):
    """{subject: "UIDVALIDITY.UID"} as IMAP sees the INBOX."""
    client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    client.login(address, PASSWORD)
    client.select("INBOX", readonly=True)
    validity = int(client.untagged_responses["UIDVALIDITY"][0])
    _, data = client.uid("FETCH", "1:*", "(UID BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
    found = {}
    for part in data:
        if isinstance(part, tuple):
            uid = int(part[0].split(b"UID ")[1].split()[0])
            subject = part[1].decode().split(":", 1)[1].strip()
            found[subject] = f"{validity}.{uid}"
    client.logout()
    return found


def account_session(server, account, address, token):
    for subject in ("first", "second", "third"):
        deliver(server, address, subject)
    wait_for("three messages in the Mail.td list", lambda: len(messages(server, account, token)) == 3)

    client = poplib.POP3("127.0.0.1", server.pop3_port, timeout=30)
    capabilities = client.capa()
    check("TOP" in capabilities and "UIDL" in capabilities and "USER" in capabilities
          and capabilities.get("SASL") == ["PLAIN", "LOGIN", "OAUTHBEARER", "XOAUTH2"],
          f"CAPA before sign-in: TOP, UIDL, USER, SASL PLAIN LOGIN OAUTHBEARER XOAUTH2 ({capabilities})")
    check("STLS" in capabilities, "STLS offered (SMTP's certificate)")
    client.user(address)
    client.pass_(PASSWORD)
    count, size = client.stat()
    check(count == 3 and size > 0, f"STAT: 3 messages ({count} {size})")
    listed = client.list()[1]
    check(len(listed) == 3, f"LIST: three lines ({listed})")
    first = uidls(client)
    check(len(set(first.values())) == 3, f"UIDL: three distinct ids ({first})")
    by_subject = imap_uidls(server, address)
    retrieved = {}
    for number in first:
        lines = client.retr(number)[1]
        subject = next(line for line in lines if line.startswith(b"Subject: ")).decode()[9:]
        retrieved[subject] = first[number]
    check(retrieved == by_subject, f"UIDL = IMAP's UIDVALIDITY.UID of the same message ({retrieved} vs {by_subject})")
    full = client.retr(1)[1]
    check(full[-3:] == [b"line one", b"line two", b"line three"], f"RETR: the whole message ({full[-3:]})")
    headers_only = client.top(1, 0)[1]
    check(headers_only[-1] == b"" and b"line one" not in headers_only, f"TOP 1 0: the header alone ({headers_only[-2:]})")
    one_line = client.top(1, 1)[1]
    check(one_line[-2:] == [b"", b"line one"], f"TOP 1 1: the header and the first body line ({one_line[-2:]})")
    client.quit()

    client = signed_in(server, address)
    check(uidls(client) == first, "UIDL: the same ids in the next session")
    # DELE then RSET keeps the message.
    client.dele(1)
    check(client.stat()[0] == 2, "DELE: STAT counts one fewer")
    try:
        client.retr(1)
        check(False, "RETR of a message marked deleted is refused")
    except poplib.error_proto as error:
        check(b"-ERR" in error.args[0], f"RETR of a message marked deleted: -ERR ({error})")
    client.rset()
    check(client.stat()[0] == 3, "RSET: the message is back")
    client.quit()
    check(len(messages(server, account, token)) == 3, "DELE then RSET then QUIT: the Mail.td list keeps all three")

    # DELE then QUIT removes it for every door, and the quota is given back.
    used_before = http(server, "GET", f"/api/accounts/{account}", bearer=token)[2]["used"]
    client = signed_in(server, address)
    client.dele(1)
    reply = client.quit()
    check(reply.startswith(b"+OK"), f"QUIT after DELE: +OK ({reply})")
    remaining = sorted(m["subject"] for m in messages(server, account, token))
    check(remaining == ["second", "third"], f"DELE then QUIT: the Mail.td list lost the first ({remaining})")
    used_after = http(server, "GET", f"/api/accounts/{account}", bearer=token)[2]["used"]
    check(used_after < used_before, f"its bytes left the quota ({used_before} -> {used_after})")

    # A session that ends without QUIT removes nothing (RFC 1939 §6).
    client = signed_in(server, address)
    client.dele(1)
    client.sock.close()
    again = signed_in(server, address)
    check(again.stat()[0] == 2 and len(messages(server, account, token)) == 2, "DELE without QUIT: nothing removed")
    again.quit()

    # AUTH PLAIN (RFC 5034) with an initial response signs in as USER/PASS does.
    client = poplib.POP3("127.0.0.1", server.pop3_port, timeout=30)
    plain = base64.b64encode(f"\0{address}\0{PASSWORD}".encode()).decode()
    reply = client._shortcmd("AUTH PLAIN " + plain)
    check(reply.startswith(b"+OK"), f"AUTH PLAIN: +OK ({reply})")
    check(client.stat()[0] == 2, "AUTH PLAIN: the same maildrop")
    client.quit()


def tls_session(server, address, ca):
    """STLS on the POP3 port and TLS from the first byte on the POP3S port, presenting SMTP's certificate
    (POSTERN_SMTP_TLS_CERT, issued by the test's CA for 127.0.0.1), verified by the client; then a sign-in and the
    maildrop over TLS."""
    client = poplib.POP3("127.0.0.1", server.pop3_port, timeout=30)
    reply = client.stls(context=ssl.create_default_context(cafile=ca.cert))
    check(reply.startswith(b"+OK"), f"poplib stls(): the handshake verifies the configured certificate ({reply})")
    capabilities = client.capa()
    check("STLS" not in capabilities and "USER" in capabilities, f"after STLS: USER, STLS no longer ({capabilities})")
    client.user(address)
    client.pass_(PASSWORD)
    check(client.stat()[0] == 2, "signed in over STLS: the same maildrop")
    client.quit()
    piped = raw_exchange(server, [b"STLS\r\nUSER x\r\n"])
    check(piped.startswith(b"+OK") and b"Send PASS" not in piped,
          f"what is pipelined after STLS in plaintext is never read as a command ({piped[:80]})")
    check(server.pop3s_port is not None, "serve's JSON line names the POP3S listener")
    secure = poplib.POP3_SSL("127.0.0.1", server.pop3s_port, context=ssl.create_default_context(cafile=ca.cert),
                             timeout=30)
    capabilities = secure.capa()
    check("STLS" not in capabilities and "USER" in capabilities and "OAUTHBEARER" in capabilities.get("SASL", []),
          f"POP3S: USER and SASL, no STLS ({capabilities})")
    secure.user(address)
    secure.pass_(PASSWORD)
    check(secure.stat()[0] == 2, "poplib POP3_SSL: signed in on the implicit-TLS port, the same maildrop")
    secure.quit()
    plain = line_clients.plaintext_answer(server.pop3s_port, b"USER x\r\n")
    check(b"+OK" not in plain, f"plaintext on the POP3S port is never read as a command ({plain[:80]})")


def agent_session(server):
    """An agent inbox with its API key: DELE then QUIT is JMAP destroyed."""
    agent = JMAPAgent(server, "pop3agent")
    deliver(server, agent.address, "for the agent")
    found = {"ids": []}

    def delivered():
        nonlocal found
        _, found = agent.response(
            agent.call(["Email/query", {"filter": {"inMailbox": agent.mailbox("inbox")}}, "q"]), "q")
        return len(found["ids"]) == 1
    wait_for("the delivery in the agent's inbox", delivered)
    state = agent.response(agent.call(["Email/get", {"ids": found["ids"], "properties": ["id"]}, "g"]), "g")[1]["state"]
    try:
        signed_in(server, agent.address, "postern_ak_" + "0" * 40)
        check(False, "a wrong API key is refused")
    except poplib.error_proto as error:
        check(b"[AUTH]" in error.args[0], f"a wrong API key: -ERR [AUTH] ({error})")
    client = signed_in(server, agent.address, agent.api_key)
    check(client.stat()[0] == 1, "the agent's inbox: one message")
    client.dele(1)
    client.quit()
    _, changes = agent.response(agent.call(["Email/changes", {"sinceState": state}, "c"]), "c")
    check(found["ids"][0] in changes["destroyed"], f"DELE then QUIT is JMAP destroyed ({changes})")


def oauth_auth(server, mechanism, message, initial_response=True):
    """AUTH `mechanism` with `message` (bytes) as poplib's line calls carry it: as the initial response or after the
    empty challenge; an error challenge (RFC 7628 §3.2.3) answered with 0x01. (final reply, decoded error JSON or None,
    the client)."""
    client = poplib.POP3("127.0.0.1", server.pop3_port, timeout=30)
    encoded = base64.b64encode(message).decode()
    if initial_response:
        client._putcmd(f"AUTH {mechanism} {encoded}")
    else:
        client._putcmd(f"AUTH {mechanism}")
        challenge = client._getline()[0]
        check(challenge == b"+ ", f"AUTH {mechanism}: the empty challenge ({challenge})")
        client._putcmd(encoded)
    reply = client._getline()[0]
    error = None
    if reply.startswith(b"+ "):
        error = json.loads(base64.b64decode(reply[2:]))
        client._putcmd("AQ==")
        reply = client._getline()[0]
    return reply, error, client


def oauth_session(server):
    """An owner's inbox through AUTH OAUTHBEARER and XOAUTH2 with tokens from Postern's own /oauth/token, and the
    tokens that open nothing refused with RFC 7628's error JSON."""
    access, address, _ = owner_token(server, OWNER[0], OWNER[1], "mail.read mail.send")
    deliver(server, address, "for the owner")
    bearer = f"n,a={address},\x01auth=Bearer {access}\x01\x01".encode()

    def stat_after_oauth():
        reply, _, client = oauth_auth(server, "OAUTHBEARER", bearer)
        count = client.stat()[0] if reply.startswith(b"+OK") else -1
        client.quit()
        return count == 1
    wait_for("AUTH OAUTHBEARER (initial response): the delivery in the owner's inbox", stat_after_oauth)
    reply, error, client = oauth_auth(
        server, "XOAUTH2", f"user={address}\x01auth=Bearer {access}\x01\x01".encode(), initial_response=False)
    check(reply.startswith(b"+OK") and error is None, f"AUTH XOAUTH2 after the empty challenge: +OK ({reply})")
    check(client.stat()[0] == 1, "XOAUTH2: the same inbox")
    client.quit()

    def refused(token, what, status):
        message = f"n,a={address},\x01auth=Bearer {token}\x01\x01".encode()
        reply, error, client = oauth_auth(server, "OAUTHBEARER", message)
        check(reply.startswith(b"-ERR [AUTH]"), f"{what}: -ERR [AUTH] ({reply})")
        check(error is not None and error.get("status") == status, f"{what}: RFC 7628's error JSON, {status} ({error})")
        client.close()

    refusals = refused_tokens(server, OWNER[0], OWNER[1], access)
    for token, what, status in refusals:
        refused(token, what, status)
    # Issue 83: six failures for one name slow it (the sign-in backoff); a token refused on what it is, the /mcp one,
    # is still told so (the error JSON, then -ERR [AUTH]), never -ERR [SYS/TEMP] "try later".
    slowed = "slowed-" + address
    for _ in range(6):
        oauth_auth(server, "OAUTHBEARER", f"n,a={slowed},\x01auth=Bearer x.y.z\x01\x01".encode())[2].close()
    mcp = refusals[0][0]
    reply, error, client = oauth_auth(server, "OAUTHBEARER", f"n,a={slowed},\x01auth=Bearer {mcp}\x01\x01".encode())
    check(reply.startswith(b"-ERR [AUTH]") and error is not None and error.get("status") == "invalid_token",
          f"a /mcp token for a name the backoff slows: the error JSON, then -ERR [AUTH] ({reply}, {error})")
    client.close()
    return address


def raw_exchange(server, lines):
    """Sends `lines` on a new connection and returns everything the server wrote until it went quiet or closed."""
    return line_clients.raw_exchange(server.pop3_port, lines)


def bad_input(server, address):
    try:
        signed_in(server, address, "wrong password entirely")
        check(False, "a wrong password is refused")
    except poplib.error_proto as error:
        check(error.args[0].startswith(b"-ERR [AUTH]"), f"a wrong password: -ERR [AUTH] ({error})")
    unknown = raw_exchange(server, [b"FROB\r\n"])
    check(unknown == b"-ERR Unknown command\r\n", f"an unknown command: -ERR Unknown command ({unknown})")
    before = raw_exchange(server, [b"STAT\r\nRETR 1\r\nDELE 1\r\n"])
    check(before.count(b"-ERR Command not allowed now\r\n") == 3, f"commands before sign-in: -ERR ({before})")
    apop = raw_exchange(server, [b"APOP user 0123456789abcdef0123456789abcdef\r\n"])
    check(apop.startswith(b"-ERR") and b"APOP" in apop, f"APOP: -ERR, not supported ({apop})")
    long_line = raw_exchange(server, [b"NOOP " + b"x" * 100_000 + b"\r\nCAPA\r\n"])
    check(long_line.startswith(b"-ERR Line too long\r\n") and b"+OK Capability list follows" in long_line,
          f"a 100 kB line: -ERR Line too long, and the next command is answered ({long_line[:80]})")
    arguments = raw_exchange(server, [f"USER {address}\r\nPASS {PASSWORD}\r\nRETR x\r\nTOP 1\r\nRETR 99\r\n".encode()])
    check(arguments.count(b"-ERR Invalid arguments") == 2 and b"-ERR No such message" in arguments,
          f"bad arguments and a missing message: -ERR with a reason ({arguments})")
    client = signed_in(server, address)
    check(client.stat()[0] == 2, "the server still serves the next client")
    client.quit()


def audited(server):
    """The audit trail's mailbox sign-ins: (action, target, door) of each `mailbox.*` event, oldest first."""
    return [(e["action"], e.get("target"), json.dumps(e.get("details")))
            for e in line_clients.mailbox_sign_ins(server)]


def main():
    with line_clients.tls_environment("postern-pop3-tls-") as (env, ca):
        run(env, ca)
    check.finish("test_pop3_clients")


def run(env, ca):
    with postern(env=env, owners=[OWNER]) as server:
        check(server.pop3_port is not None, "serve's JSON line names the POP3 listener")
        address = "pop3-user@" + domains(server)[0]
        account = create_account(server, address, password=PASSWORD)["id"]
        token = http(server, "POST", "/api/token", {"address": address, "password": PASSWORD})[2]["token"]
        account_session(server, account, address, token)
        tls_session(server, address, ca)
        agent_session(server)
        owned = oauth_session(server)
        bad_input(server, address)
        trail = audited(server)
        check(any(a == "mailbox.signin" and t == owned and "pop3" in d and "oauth" in d for a, t, d in trail)
              and any(a == "mailbox.signin_failed" and "pop3" in d and "oauth" in d for a, t, d in trail),
              f"POP3 OAuth sign-ins and refusals are on the audit trail, door pop3 ({trail[-3:]})")
        check(any(a == "mailbox.signin" and t == address and "pop3" in d for a, t, d in trail)
              and any(a == "mailbox.signin_failed" and "pop3" in d for a, t, d in trail),
              f"POP3 sign-ins and refusals are on the audit trail, door pop3 ({trail[:3]})")


if __name__ == "__main__":
    main()
