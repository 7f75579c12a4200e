"""IMAP as real clients speak it (issue 70): Python's imaplib and the imapclient package against `postern serve
--profile test` (IMAP on, on a free loopback port), signed in with a Mail.td account's address and password. One
store behind every door: mail arrives over SMTP, flags set through IMAP show in the Mail.td API's read state and the
reverse, a message moved to Sent or expunged leaves the Mail.td inbox list, and IDLE is woken by an SMTP delivery.
TLS: imaplib's starttls() and IMAP4_SSL on the implicit-TLS port, verifying the test's own CA's certificate given as
SMTP's pair. Sign-in with every credential: a Pro user's API token for an account it owns, an owner's OAuth access
token from Postern's own /oauth/token through imapclient's oauthbearer_login and oauth2_login (and refused, with RFC
7628's error JSON, for another resource, without mail.read, forged). Then the bad inputs: a wrong password, an
unknown command before and after sign-in, FETCH 1:* on an empty mailbox, a 100 kB and a 64 MiB line, an
unterminated, a short and an oversized literal (synchronizing and not), 10,000 pipelined commands; each answered
BAD/NO/BYE with a reason (or OK, for the empty FETCH), the server's peak RSS bounded through them all, and the server
serves the next client. And the one search (issue 82), as imap-tools asks it: SEARCH BODY, TEXT and SUBJECT find words
of a base64 and a quoted-printable body and of RFC 2047 subjects (B and Q), ASCII and with CHARSET UTF-8, ignoring
ASCII case, as Dovecot finds them. And folders every door sees (decision 0035): imapclient makes, renames and deletes
folders and moves mail between them while JMAP's Mailbox/get and Email/changes agree."""

import base64
import imaplib
import os
import json
import ssl
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, install_packages, postern, rss_kib
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit import line_clients
from postern_testkit.line_clients import deliver, poll
from postern_testkit.mail_fixtures import deliver_smtp
from postern_testkit.mailtd import create_account, domains, messages, pro_login, pro_token
from postern_testkit.owner_tokens import owner_token, refused_tokens

VERSION = "3.0.1"
IMAP_TOOLS = "1.16.0"
PASSWORD = "correct horse battery staple"
OWNER = ("imap-owner@example.com", "imap-owner-password-1")
PRO = ("imap-pro@example.com", "imap-pro-password-1")
check = Checks()


def signed_in(server, address):
    client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    client.login(address, PASSWORD)
    return client


def wait_for(what, test, seconds=30):
    """Polls `test` until it is true or `seconds` pass (a busy machine gets the time it needs)."""
    return poll(test, seconds) or check(False, what + f" (not within {seconds} s)")


def imaplib_session(server, account, address, token):
    refused = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    try:
        refused.login(address, "wrong password entirely")
        check(False, "a wrong password is refused")
    except imaplib.IMAP4.error as error:
        check(b"AUTHENTICATIONFAILED" in str(error).encode(), f"a wrong password: NO [AUTHENTICATIONFAILED] ({error})")
    refused.logout()

    deliver(server, address, "first")
    deliver(server, address, "second")
    wait_for("two messages in the Mail.td list", lambda: len(messages(server, account, token)) == 2)
    client = signed_in(server, address)
    status, data = client.select("INBOX")
    check(status == "OK" and data == [b"2"], f"SELECT INBOX: 2 messages ({status} {data})")
    validity = client.untagged_responses.get("UIDVALIDITY", [b"0"])[0]
    check(int(validity) > 0, "UIDVALIDITY given")
    status, data = client.uid("FETCH", "1:*", "(UID FLAGS BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
    subjects = [part[1] for part in data if isinstance(part, tuple)]
    check(subjects == [b"Subject: first\r\n\r\n", b"Subject: second\r\n\r\n"], f"UID FETCH of both headers ({subjects})")
    check(b"UID 1 " in data[0][0] and b"FLAGS (\\Recent)" in data[0][0],
          f"UID 1, no flags but \\Recent: this is the first SELECT since it arrived ({data[0][0]})")

    # IMAP -> Mail.td: \Seen is the read state.
    client.store("1", "+FLAGS", "(\\Seen \\Flagged)")
    listed = {m["subject"]: m for m in messages(server, account, token)}
    check(listed["first"]["is_read"] and not listed["second"]["is_read"], "\\Seen through IMAP: read in the Mail.td list")
    # Mail.td -> IMAP: a NOOP reports the flag change made through the other door.
    status, _, _ = http(server, "PUT", f"/api/accounts/{account}/messages/{listed['second']['id']}/read", bearer=token)
    check(status == 200, f"PUT .../read: 200 ({status})")
    client.noop()
    fetched = client.untagged_responses.pop("FETCH", [])
    check(any(b"\\Seen" in item and item.startswith(b"2 ") for item in fetched),
          f"NOOP reports FETCH 2 (FLAGS (\\Seen)) for a read through Mail.td ({fetched})")

    # A FETCH of bytes reads the address's state with them (one trip to the store while nothing changed): a flag
    # changed through the other door since the last command is told before the bytes, never skipped.
    client.store("1", "-FLAGS", "(\\Seen)")
    status, _, _ = http(server, "PUT", f"/api/accounts/{account}/messages/{listed['first']['id']}/read", bearer=token)
    check(status == 200, f"PUT .../read of the first: 200 ({status})")
    status, data = client.uid("FETCH", "1", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
    told = [part[0] if isinstance(part, tuple) else part for part in data]
    check(status == "OK" and any(b"\\Seen" in item and item.startswith(b"1 ") for item in told),
          f"UID FETCH 1 (BODY.PEEK[...]) tells FLAGS (\\Seen) set through Mail.td since ({data})")
    check([part[1] for part in data if isinstance(part, tuple)] == [b"Subject: first\r\n\r\n"],
          f"and the bytes asked for ({data})")

    # ENVELOPE is kept parsed per message for every session (IMAPEnvelopeCache): asked again, in another session too,
    # it is the same bytes, and a flag changed meanwhile shows beside it.
    def envelope_of(data):
        line = b"".join(part[0] + part[1] if isinstance(part, tuple) else part for part in data)
        return line[line.find(b"ENVELOPE"):], line
    status, data = client.uid("FETCH", "1", "(FLAGS ENVELOPE)")
    first, line = envelope_of(data)
    check(status == "OK" and first.startswith(b"ENVELOPE (") and b'"first"' in first, f"UID FETCH 1 ENVELOPE ({line})")
    client.store("1", "+FLAGS", "(\\Answered)")
    other = signed_in(server, address)
    other.select("INBOX")
    for session in (client, other):
        status, data = session.uid("FETCH", "1", "(FLAGS ENVELOPE)")
        again, line = envelope_of(data)
        check(again == first and b"\\Answered" in line, f"the same ENVELOPE again, FLAGS with \\Answered ({line})")
    other.logout()

    # \Deleted + EXPUNGE deletes for every door, and the quota is given back.
    used_before = http(server, "GET", f"/api/accounts/{account}", bearer=token)[2]["used"]
    client.store("1", "+FLAGS", "(\\Deleted)")
    status, data = client.expunge()
    check(status == "OK" and data == [b"1"], f"EXPUNGE: * 1 EXPUNGE ({data})")
    remaining = [m["subject"] for m in messages(server, account, token)]
    check(remaining == ["second"], f"the Mail.td list lost the expunged message ({remaining})")
    used_after = http(server, "GET", f"/api/accounts/{account}", bearer=token)[2]["used"]
    check(used_after < used_before, f"its bytes left the quota ({used_before} -> {used_after})")

    # APPEND to Sent stores a written message there, with its UID.
    status, data = client.append("Sent", "(\\Seen)", None, b"From: me\r\nSubject: kept\r\n\r\nbody\r\n")
    check(status == "OK" and b"APPENDUID" in data[0], f"APPEND to Sent: OK [APPENDUID ...] ({data})")
    status, data = client.status("Sent", "(MESSAGES UIDNEXT)")
    check(status == "OK" and b"MESSAGES 1" in data[0], f"STATUS Sent: 1 message ({data})")
    status, data = client.list()
    check(any(b"\\Sent" in line and line.endswith(b"Sent") for line in data), f"LIST: Sent with \\Sent ({data})")
    status, data = client.create("Projects")
    check(status == "OK", f"CREATE: a folder of the account's own (decision 0035) ({data})")
    client.logout()


def imapclient_session(server, account, address, token):
    install_packages("imapclient-" + VERSION, ["imapclient==" + VERSION], ["imapclient"])
    from imapclient import IMAPClient

    with IMAPClient("127.0.0.1", port=server.imap_port, ssl=False, timeout=30) as client:
        client.login(address, PASSWORD)
        capabilities = client.capabilities()
        check(b"IDLE" in capabilities and b"MOVE" in capabilities, "IDLE and MOVE advertised")
        check(all(c in capabilities for c in (b"LIST-EXTENDED", b"LIST-STATUS", b"SPECIAL-USE", b"CREATE-SPECIAL-USE")),
              "LIST-EXTENDED, LIST-STATUS, SPECIAL-USE and CREATE-SPECIAL-USE advertised (decision 0035)")
        selected = client.select_folder("INBOX")
        known = selected[b"EXISTS"]
        client.idle()
        deliver(server, address, "while idling")
        woken = []
        deadline = time.monotonic() + 30
        while not woken and time.monotonic() < deadline:
            woken = [r for r in client.idle_check(timeout=1) if r[1] == b"EXISTS"]
        client.idle_done()
        check(woken and woken[0][0] == known + 1, f"IDLE woken by an SMTP delivery: * {known + 1} EXISTS ({woken})")

        uids = client.search(["SUBJECT", "while idling"])
        check(len(uids) == 1, f"SEARCH SUBJECT finds it ({uids})")
        client.move(uids, "Sent")
        listed = [m["subject"] for m in messages(server, account, token)]
        check("while idling" not in listed, f"MOVE to Sent: gone from the Mail.td inbox list ({listed})")
        client.select_folder("Sent")
        check(len(client.search(["SUBJECT", "while idling"])) == 1, "and found in Sent")

        client.select_folder("INBOX")
        uids = client.search("ALL")
        client.add_flags(uids, [b"\\Deleted"])
        client.uid_expunge(uids)
        check(client.search("ALL") == [] and messages(server, account, token) == [], "UID EXPUNGE empties the inbox")
        check(client.fetch("1:*", ["FLAGS"]) == {}, "FETCH 1:* on an empty mailbox: nothing, OK")


def b64(text):
    return base64.b64encode(text.encode()).decode()


# Each message's words hidden as mail hides them: a base64 UTF-8 body, a quoted-printable one with a soft line break
# inside a word, RFC 2047 subjects in B and Q, an encoded display name.
ENCODED = [
    "From: Plain Sender <plain@example.org>\r\nSubject: Quarterly report\r\n\r\nThe meeting is on Tuesday.\r\n",
    "From: sender@example.org\r\nSubject: Parcel\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Transfer-Encoding: base64\r\n\r\n" + b64("Grüße aus Zürich: the parcel arrived.\r\n") + "\r\n",
    "From: sender@example.org\r\nSubject: Dessert\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Transfer-Encoding: quoted-printable\r\n\r\nCaf=C3=A9 cr=C3=A8me with pine=\r\napple.\r\n",
    "From: sender@example.org\r\nSubject: =?UTF-8?B?" + b64("Rechnung für März") + "?=\r\n\r\nSee attached.\r\n",
    "From: sender@example.org\r\nSubject: =?ISO-8859-1?Q?Caf=E9_menu_update?=\r\n\r\nNew dishes.\r\n",
    "From: =?UTF-8?Q?Zo=C3=AB_Lambert?= <zoe@example.net>\r\nSubject: Hello\r\n\r\nJust saying hi.\r\n",
]


def encoded_search(server):
    """imap-tools' SEARCH BODY/TEXT/SUBJECT/FROM over ENCODED: each finds the message whose decoded text holds it."""
    install_packages("imap-tools-" + IMAP_TOOLS, ["imap-tools==" + IMAP_TOOLS], ["imap_tools"])
    from imap_tools import AND, MailBoxUnencrypted

    address = "imap-search@" + domains(server)[0]
    create_account(server, address, password=PASSWORD)
    for raw in ENCODED:
        deliver_smtp("127.0.0.1", server.smtp_port, "app@example.com", [address],
                     f"To: {address}\r\n{raw}".encode())
    with MailBoxUnencrypted("127.0.0.1", port=server.imap_port, timeout=30).login(address, PASSWORD, "INBOX") as box:
        wait_for("the six messages in INBOX", lambda: len(box.uids("ALL")) == len(ENCODED))
        for criteria, found in [
            (AND(body="TUESDAY"), ["Quarterly report"]),
            (AND(body="pineapple"), ["Dessert"]),
            (AND(body="Parcel Arrived"), ["Parcel"]),
            (AND(text="rechnung"), ["Rechnung für März"]),
            (AND(subject="RECHNUNG"), ["Rechnung für März"]),
            (AND(subject="menu update"), ["Café menu update"]),
            (AND(from_="lambert"), ["Hello"]),
            (AND(text="absent"), []),
            (AND(body="zürich"), ["Parcel"]),
            (AND(text="crème"), ["Dessert"]),
            (AND(subject="März"), ["Rechnung für März"]),
            (AND(subject="café"), ["Café menu update"]),
            (AND(from_="Zoë"), ["Hello"]),
        ]:
            charset = "US-ASCII" if str(criteria).isascii() else "UTF-8"
            subjects = sorted(m.subject for m in box.fetch(criteria, charset=charset, mark_seen=False))
            check(subjects == found, f"SEARCH CHARSET {charset} {criteria}: {found} ({subjects})")


def tls_sessions(server, address, ca):
    """STARTTLS on the IMAP port and TLS from the first byte on the IMAPS port, both presenting SMTP's certificate
    (POSTERN_SMTP_TLS_CERT, issued by the test's CA for 127.0.0.1), verified by the client."""
    context = ssl.create_default_context(cafile=ca.cert)
    client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    check("STARTTLS" in client.capabilities, f"STARTTLS offered on the IMAP port ({client.capabilities})")
    status, _ = client.starttls(ssl_context=context)
    check(status == "OK", "imaplib starttls(): the handshake verifies the configured certificate")
    check("STARTTLS" not in client.capabilities and "AUTH=PLAIN" in client.capabilities,
          f"after STARTTLS: AUTH=PLAIN, STARTTLS no longer ({client.capabilities})")
    client.login(address, PASSWORD)
    check(client.select("INBOX")[0] == "OK", "signed in and SELECT INBOX over STARTTLS")
    client.logout()
    check(server.imaps_port is not None, "serve's JSON line names the IMAPS listener")
    secure = imaplib.IMAP4_SSL("127.0.0.1", server.imaps_port, ssl_context=context, timeout=30)
    check("STARTTLS" not in secure.capabilities and "AUTH=PLAIN" in secure.capabilities,
          f"IMAPS: AUTH=PLAIN, no STARTTLS ({secure.capabilities})")
    secure.login(address, PASSWORD)
    check(secure.select("INBOX")[0] == "OK", "IMAP4_SSL: signed in and SELECT INBOX on the implicit-TLS port")
    secure.logout()
    answer = line_clients.plaintext_answer(server.imaps_port, b"a1 LOGIN x y\r\n")
    check(b"a1" not in answer, f"plaintext on the IMAPS port is never read as a command ({answer[:80]})")


def oauth_sessions(server):
    """An owner's inbox through AUTHENTICATE OAUTHBEARER and XOAUTH2 with tokens from Postern's own /oauth/token:
    imapclient's oauthbearer_login and oauth2_login sign in; a token of another resource, a mail.send-only token and
    a revoked one get NO [AUTHENTICATIONFAILED] after RFC 7628's error JSON."""
    from imapclient import IMAPClient
    from imapclient.exceptions import LoginError
    access, address, _ = owner_token(server, OWNER[0], OWNER[1], "mail.read mail.send")
    check(len(access) > 510, f"an access token is past NeoMutt's 510 characters, as docs/imap.md says ({len(access)})")
    deliver(server, address, "for the owner")
    with IMAPClient("127.0.0.1", port=server.imap_port, ssl=False, timeout=30) as client:
        check(b"AUTH=OAUTHBEARER" in client.capabilities() and b"AUTH=XOAUTH2" in client.capabilities(),
              f"OAUTHBEARER and XOAUTH2 offered ({client.capabilities()})")
        client.oauthbearer_login(address, access)
        wait_for("the delivery in the owner's inbox", lambda: client.select_folder("INBOX")[b"EXISTS"] == 1)
    with IMAPClient("127.0.0.1", port=server.imap_port, ssl=False, timeout=30) as client:
        client.oauth2_login(address, access)
        check(client.select_folder("INBOX")[b"EXISTS"] == 1, "XOAUTH2: the same inbox")

    def refused(token, what, status, user=address):
        client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
        challenges = []
        message = f"n,a={user},\x01auth=Bearer {token}\x01\x01".encode()
        def answer(challenge):
            challenges.append(challenge)
            return message if len(challenges) == 1 else b"\x01"
        try:
            client.authenticate("OAUTHBEARER", answer)
            check(False, f"{what}: refused")
        except imaplib.IMAP4.error as error:
            check(b"AUTHENTICATIONFAILED" in str(error).encode(), f"{what}: NO [AUTHENTICATIONFAILED] ({error})")
        errors = [json.loads(c) for c in challenges if c.startswith(b"{")]
        check(errors and errors[0].get("status") == status, f"{what}: RFC 7628's error JSON, {status} ({challenges})")
        client.shutdown()

    refusals = refused_tokens(server, OWNER[0], OWNER[1], access)
    for token, what, status in refusals:
        refused(token, what, status)
    # Issue 83: six failures for one name slow it (the sign-in backoff); a token refused on what it is, the /mcp one,
    # is still told so (the error JSON, then NO [AUTHENTICATIONFAILED]), never NO [UNAVAILABLE] "try later".
    slowed = "slowed-" + address
    for _ in range(6):
        client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
        garbage = f"n,a={slowed},\x01auth=Bearer x.y.z\x01\x01".encode()
        try:
            client.authenticate("OAUTHBEARER", lambda challenge, m=garbage: m if not challenge else b"\x01")
        except imaplib.IMAP4.error:
            pass
        client.shutdown()
    refused(refusals[0][0], "a /mcp token for a name the backoff slows", "invalid_token", user=slowed)
    return address


def pro_session(server, other_address):
    """A Pro user's API token opens an account that user owns, and no other account."""
    jwt = pro_login(server, *PRO)
    token = pro_token(server, jwt, "imap")["token"]
    address = "imap-pro-box@" + domains(server)[0]
    create_account(server, address, password=PASSWORD, bearer=jwt)
    client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    client.login(address, token)
    check(client.select("INBOX")[0] == "OK", "a Pro API token signs in to an account its user owns")
    client.logout()
    client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    try:
        client.login(other_address, token)
        check(False, "a Pro API token is refused for an account its user does not own")
    except imaplib.IMAP4.error as error:
        check(b"AUTHENTICATIONFAILED" in str(error).encode(),
              f"a Pro API token for another's account: NO [AUTHENTICATIONFAILED] ({error})")
    client.shutdown()


def agent_session(server):
    """An agent inbox signed in with its API key: a flag set through IMAP is a keyword in JMAP's Email/get, and an
    expunge is destroyed in JMAP's Email/changes."""
    agent = JMAPAgent(server, "imapagent")
    deliver(server, agent.address, "for the agent")
    client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    try:
        client.login(agent.address, "postern_ak_" + "0" * 40)
        check(False, "a wrong API key is refused")
    except imaplib.IMAP4.error as error:
        check(b"AUTHENTICATIONFAILED" in str(error).encode(), "a wrong API key: NO [AUTHENTICATIONFAILED]")
    # docs/imap.md (issue 83 item 3): the API key is what a mail client signs in with, within NeoMutt's 255-byte
    # password; an owner's access token is not (oauth_sessions checks it is past NeoMutt's 510 characters).
    check(len(agent.api_key) == 54, f"an API key fits NeoMutt's password buffer: 54 characters ({len(agent.api_key)})")
    client.login(agent.address, agent.api_key)
    wait_for("the delivery in the agent's INBOX", lambda: client.select("INBOX")[1] == [b"1"])
    _, found = agent.response(agent.call(["Email/query", {"filter": {"inMailbox": agent.mailbox("inbox")}}, "q"]), "q")
    state = agent.response(agent.call(["Email/get", {"ids": found["ids"], "properties": ["id"]}, "g"]), "g")[1]["state"]
    client.store("1", "+FLAGS", "(\\Flagged $Label1)")
    _, got = agent.response(agent.call(["Email/get", {"ids": found["ids"], "properties": ["keywords"]}, "g"]), "g")
    keywords = got["list"][0]["keywords"]
    check(keywords.get("$flagged") and keywords.get("$label1"), f"IMAP's \\Flagged and $Label1 are JMAP keywords ({keywords})")
    client.store("1", "+FLAGS", "(\\Deleted)")
    client.expunge()
    _, changes = agent.response(agent.call(["Email/changes", {"sinceState": state}, "c"]), "c")
    check(found["ids"][0] in changes["destroyed"], f"EXPUNGE is JMAP destroyed ({changes})")
    client.logout()


def folders_session(server):
    """Folders every door sees (decision 0035): imapclient makes, renames and deletes folders and moves and copies mail
    between them, while JMAP's Mailbox/get, Mailbox/changes and Email/changes agree; a folder JMAP makes is one IMAP
    lists; the IMAP errors are Dovecot's codes."""
    from imapclient import IMAPClient
    from imapclient.exceptions import IMAPClientError

    agent = JMAPAgent(server, "imapfolders")
    deliver(server, agent.address, "to be filed")

    def mailboxes():
        _, got = agent.response(agent.call(["Mailbox/get", {}, "m"]), "m")
        return got["state"], {m["id"]: m for m in got["list"]}

    def by_name(listed, name, parent=None):
        return next((m for m in listed.values() if m["name"] == name and m["parentId"] == parent), None)

    def refused(code, action):
        try:
            action()
            check(False, f"refused with [{code}]")
        except IMAPClientError as error:
            check(code.encode() in str(error).encode(), f"refused with [{code}] ({error})")

    state, listed = mailboxes()
    roles = sorted(m["role"] for m in listed.values() if m["role"])
    check(roles == ["archive", "drafts", "inbox", "junk", "sent", "trash"], f"six fixed mailboxes with roles ({roles})")
    with IMAPClient("127.0.0.1", port=server.imap_port, ssl=False, timeout=30) as client:
        client.login(agent.address, agent.api_key)
        special = {name: flags for flags, _, name in client.list_folders() if name in ("Trash", "Junk", "Archive")}
        check(special.get("Trash") and b"\\Trash" in special["Trash"] and b"\\Archive" in special.get("Archive", ()),
              f"LIST shows the special-use folders ({special})")
        client.create_folder("Projects/2026")
        client.create_folder("Räume")  # imapclient sends it in modified UTF-7
        _, listed = mailboxes()
        projects = by_name(listed, "Projects")
        year = projects and by_name(listed, "2026", projects["id"])
        check(year is not None and by_name(listed, "Räume") is not None,
              f"Mailbox/get shows Projects, Projects/2026 under it and Räume ({sorted(m['name'] for m in listed.values())})")
        _, changed = agent.response(agent.call(["Mailbox/changes", {"sinceState": state}, "c"]), "c")
        check(year and year["id"] in changed["created"], f"Mailbox/changes: created ({changed})")
        refused("ALREADYEXISTS", lambda: client.create_folder("Projects"))

        client.select_folder("INBOX")
        wait_for("the delivery in INBOX", lambda: client.search(["SUBJECT", "to be filed"]))
        uids = client.search(["SUBJECT", "to be filed"])
        _, emails = agent.response(agent.call(["Email/query", {"filter": {"inMailbox": agent.mailbox("inbox")}}, "q"]), "q")
        email = emails["ids"][0]
        _, before = agent.response(agent.call(["Email/get", {"ids": [email], "properties": ["id"]}, "g"]), "g")
        client.move(uids, "Projects/2026")
        _, got = agent.response(agent.call(["Email/get", {"ids": [email], "properties": ["mailboxIds"]}, "g"]), "g")
        check(year and got["list"][0]["mailboxIds"] == {year["id"]: True}, f"MOVE: JMAP's mailboxIds is 2026 ({got})")
        _, changes = agent.response(agent.call(["Email/changes", {"sinceState": before["state"]}, "c"]), "c")
        check(email in changes["updated"], f"MOVE is JMAP updated ({changes})")

        client.rename_folder("Projects", "Work")
        _, listed = mailboxes()
        work = by_name(listed, "Work")
        check(work and work["id"] == projects["id"] and by_name(listed, "2026", work["id"])["id"] == year["id"],
              "RENAME keeps the ids, the child goes with it")
        plain = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
        plain.login(agent.address, agent.api_key)
        plain.select("Work/2026")
        status, copied = plain.copy("1", "Trash")
        check(status == "OK" and b"[COPYUID " in copied[0], f"COPY to Trash answers COPYUID ({copied})")
        plain.logout()
        _, trash = agent.response(agent.call(["Email/query", {"filter": {"inMailbox": agent.mailbox("trash")}}, "t"]), "t")
        check(len(trash["ids"]) == 1, f"the copy is in JMAP's trash ({trash})")
        client.unselect_folder()

        refused("HASCHILDREN", lambda: client.delete_folder("Work"))
        refused("CANNOT", lambda: client.delete_folder("Trash"))
        refused("CANNOT", lambda: client.rename_folder("INBOX", "Old"))
        refused("NONEXISTENT", lambda: client.delete_folder("No such"))
        state, _ = mailboxes()
        _, before = agent.response(agent.call(["Email/get", {"ids": [], "properties": ["id"]}, "g"]), "g")
        client.delete_folder("Work/2026")
        _, changes = agent.response(agent.call(["Email/changes", {"sinceState": before["state"]}, "c"]), "c")
        check(email in changes["destroyed"], f"DELETE takes its messages: JMAP destroyed ({changes})")
        _, changed = agent.response(agent.call(["Mailbox/changes", {"sinceState": state}, "c"]), "c")
        check(year["id"] in changed["destroyed"], f"Mailbox/changes: destroyed ({changed})")

        _, made = agent.response(agent.call(["Mailbox/set", {"create": {"k": {"name": "From JMAP", "parentId": work["id"]}}}, "s"]), "s")
        check("k" in (made.get("created") or {}), f"Mailbox/set creates ({made})")
        names = [name for _, _, name in client.list_folders()]
        check("Work/From JMAP" in names and "Räume" in names, f"IMAP lists what JMAP made ({names})")
        _, gone = agent.response(agent.call(["Mailbox/set", {"destroy": [agent.mailbox("inbox"), work["id"]]}, "d"]), "d")
        kinds = {key: error["type"] for key, error in (gone.get("notDestroyed") or {}).items()}
        check(kinds == {agent.mailbox("inbox"): "forbidden", work["id"]: "mailboxHasChild"},
              f"Mailbox/set refuses the inbox (forbidden) and a parent (mailboxHasChild) ({kinds})")


def raw_exchange(server, lines):
    """Sends `lines` on a new connection and returns everything the server wrote until it went quiet or closed."""
    return line_clients.raw_exchange(server.imap_port, lines)


def answer(received, tag):
    """The text of the tagged answer to `tag` in `received` (b"BAD [TOOBIG] ..."), or b"" when there is none."""
    for line in received.split(b"\r\n"):
        if line.startswith(tag + b" "):
            return line[len(tag) + 1:]
    return b""


def refused(received, tag, status=b"BAD"):
    """Whether `tag` was answered `status` with a reason (some text after the status and any response code)."""
    text = answer(received, tag)
    reason = text[len(status):].strip()
    if reason.startswith(b"["):
        reason = reason.partition(b"]")[2].strip()
    return text.startswith(status + b" ") and len(reason) > 0


def peak_rss_kib(pid):
    """The highest resident set size process `pid` has had, in KiB (VmHWM): a buffer grown and freed again counts."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


def bad_input(server, address):
    peak_before = peak_rss_kib(server.process.pid)
    before = raw_exchange(server, [b"a1 FROB\r\n", b"a2 SELECT INBOX\r\n"])
    check(refused(before, b"a1") and refused(before, b"a2"),
          f"unknown and out-of-state commands before sign-in: BAD with a reason ({before})")
    after = raw_exchange(server, [f'a1 LOGIN "{address}" "{PASSWORD}"\r\n'.encode(), b"a2 FROB\r\n"])
    check(b"a1 OK" in after and refused(after, b"a2"), f"an unknown command after sign-in: BAD with a reason ({after})")
    long_line = raw_exchange(server, [b"a1 NOOP " + b"x" * 100_000 + b"\r\n", b"a2 NOOP\r\n"])
    check(refused(long_line, b"a1") and b"a2 OK" in long_line,
          f"a 100 kB line: BAD with a reason, and the next command is answered ({long_line[:200]})")
    # A line of 64 MiB, 256 times the input a session buffers: read to its end without being kept (the peak RSS
    # below would rise by more than its bound if it were).
    huge = raw_exchange(server, [b"a1 NOOP "] + [b"x" * (1 << 20)] * 64 + [b"\r\n", b"a2 NOOP\r\n"])
    check(refused(huge, b"a1") and b"a2 OK" in huge, f"a 64 MiB line: BAD with a reason, then served ({huge[:200]})")
    literal = raw_exchange(server, [b"a1 LOGIN {5}\r\n", b"ab"])
    check(b"+ " in literal, "an unterminated literal is waited for")
    literal = raw_exchange(server, [b"a1 LOGIN {5}\r\n", b"ab\r\n", b"a2 NOOP\r\n", b"a3 NOOP\r\n"])
    check(refused(literal, b"a1"), f"a literal ended early by the next commands: the command is BAD ({literal})")
    too_big = raw_exchange(server, [b"a1 APPEND INBOX {999999999999}\r\n"])
    check(refused(too_big, b"a1"), f"a literal over the limit: BAD with a reason ({too_big[:200]})")
    too_big = raw_exchange(server, [b"a1 APPEND INBOX {999999999999+}\r\n", b"x" * 65536])
    check(b"BAD" in too_big and b"BYE" in too_big, f"a non-synchronizing literal over the limit: BAD, BYE ({too_big[:200]})")
    pipelined = raw_exchange(server, [b"".join(b"p%d NOOP\r\n" % n for n in range(10_000))])
    check(pipelined.count(b" OK NOOP completed") == 10_000, "10,000 pipelined commands: each answered")
    empty = raw_exchange(server, [f'a1 LOGIN "{address}" "{PASSWORD}"\r\n'.encode(), b"a2 SELECT Drafts\r\n",
                                  b"a3 FETCH 1:* (FLAGS)\r\n"])
    check(b"* 0 EXISTS" in empty and refused(empty, b"a3", b"OK") and b"FETCH (" not in empty,
          f"FETCH 1:* on an empty mailbox: OK, nothing fetched ({empty[-300:]})")
    # A search string of 60,000 bytes (issue 81, item 2): refused as an implementation limit before any mail is read.
    needle = raw_exchange(server, [f'a1 LOGIN "{address}" "{PASSWORD}"\r\n'.encode(), b"a2 SELECT INBOX\r\n",
                                   b'a3 SEARCH BODY "' + b"a" * 60_000 + b'b"\r\n', b"a4 NOOP\r\n"])
    check(answer(needle, b"a3").startswith(b"NO [LIMIT] ") and b"a4 OK" in needle,
          f"a 60,000-byte SEARCH string: NO [LIMIT], then served ({answer(needle, b'a3')[:100]})")
    grown = peak_rss_kib(server.process.pid) - peak_before
    check(grown < 32 * 1024, f"the server's memory stays bounded through every bad input (peak RSS {peak_before} KiB "
                             f"+{grown} KiB, now {rss_kib(server.process.pid)} KiB)")
    client = signed_in(server, address)
    check(client.select("INBOX")[0] == "OK", "the server still serves the next client")
    client.logout()


def audited(server):
    """The audit trail's IMAP sign-ins: (action, target) of each `mailbox.*` event, oldest first."""
    return [(e["action"], e.get("target")) for e in line_clients.mailbox_sign_ins(server)]


def main():
    with line_clients.tls_environment("postern-imap-tls-") as (env, ca):
        run(env, ca)
    check.finish("test_imap_clients")


def run(env, ca):
    with postern(env=env, owners=[OWNER], pro_users=[PRO]) as server:
        check(server.imap_port is not None, "serve's JSON line names the IMAP listener")
        address = "imap-user@" + domains(server)[0]
        created = create_account(server, address, password=PASSWORD)
        account = created["id"]
        token = http(server, "POST", "/api/token", {"address": address, "password": PASSWORD})[2]["token"]
        imaplib_session(server, account, address, token)
        imapclient_session(server, account, address, token)
        encoded_search(server)
        tls_sessions(server, address, ca)
        pro_session(server, address)
        owned = oauth_sessions(server)
        agent_session(server)
        folders_session(server)
        bad_input(server, address)
        trail = audited(server)
        check(("mailbox.signin_failed", address) in trail and ("mailbox.signin", address) in trail,
              f"every IMAP sign-in and refusal is on the audit trail ({trail[:3]})")
        check(("mailbox.signin", owned) in trail, f"an OAuth sign-in is on the audit trail ({owned})")


if __name__ == "__main__":
    main()
