"""NeoMutt's server-side search (issue 82): `=b` (body) and `=B` (the whole message) are NeoMutt's patterns that it
does not evaluate itself but sends to the server as IMAP `UID SEARCH BODY`/`TEXT`, so what it shows is what
Postern's one search finds. Debian's NeoMutt, unmodified, on a pseudo-terminal (it is a curses program), signs in to
`postern serve --profile test` with a Mail.td address and password over IMAP, tags what a pattern matches and copies
the tagged messages into an mbox file; the test reads their (decoded) subjects. The corpus is test_imap_clients' ENCODED: words
of a base64 UTF-8 body, a quoted-printable body with a soft break inside a word, RFC 2047 B and Q subjects, each found
as Dovecot finds them, and a word that is in no message tagging none. Skipped where NeoMutt is not installed
(`scripts/bootstrap --test` installs it)."""

import os
import pty
import select
import shutil
import sys
import tempfile
import time
from email.header import decode_header, make_header

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit.mail_fixtures import deliver_smtp
from postern_testkit.mailtd import create_account, domains
from test_imap_clients import ENCODED, PASSWORD

check = Checks()

# (pattern, the subjects of the messages it must tag)
SEARCHES = [
    ("=b tuesday", ["Quarterly report"]),
    ("=b pineapple", ["Dessert"]),
    ("=b 'parcel arrived'", ["Parcel"]),
    ("=b zürich", ["Parcel"]),
    ("=b crème", ["Dessert"]),
    ("=B rechnung", ["Rechnung für März"]),
    ("=B menu", ["Café menu update"]),
    ("=b absent", []),
]


def settings(directory, server, address, password=PASSWORD):
    """A muttrc for the account (its password, or an app password): IMAP in the clear on loopback, nothing cached, no
    question asked on the way out."""
    path = os.path.join(directory, "muttrc")
    with open(path, "w") as file:
        file.write(f"""set imap_user="{address}"
set imap_pass="{password}"
set folder="imap://127.0.0.1:{server.imap_port}/"
set spoolfile="+INBOX"
set ssl_starttls=no
set ssl_force_tls=no
set imap_check_subscribed=no
set header_cache=""
set message_cachedir=""
set mbox_type=mbox
set confirmcreate=no
set confirmappend=no
set quit=yes
set move=no
set delete=no
set charset="utf-8"
""")
    return path


def tagged_subjects(muttrc, pattern, mbox, seconds=120):
    """Runs NeoMutt on a pseudo-terminal with `pattern` tagged and the tagged messages copied into `mbox` (nothing is
    copied when nothing is tagged: `<tag-prefix-cond>` skips to `<end-cond>`), then quits. Returns the subjects in
    `mbox` and the end of what NeoMutt drew (for the check's message)."""
    keys = f"<tag-pattern>{pattern}<enter><tag-prefix-cond><copy-message>{mbox}<enter><end-cond><quit>"
    pid, terminal = pty.fork()
    if pid == 0:
        os.environ.update(TERM="xterm", COLUMNS="120", LINES="40", LC_ALL="C.UTF-8")
        os.execvp("neomutt", ["neomutt", "-n", "-F", muttrc, "-e", f'push "{keys}"'])
    drawn, deadline, done = b"", time.monotonic() + seconds, False
    while not done and time.monotonic() < deadline:
        if select.select([terminal], [], [], 1)[0]:
            try:
                chunk = os.read(terminal, 65536)
            except OSError:  # the program ended: the terminal's other side is closed
                chunk = b""
            drawn += chunk
            done = not chunk
        done = done or os.waitpid(pid, os.WNOHANG)[0] == pid
    if not done:
        os.kill(pid, 9)
    os.close(terminal)
    subjects = []
    if os.path.exists(mbox):
        with open(mbox, "rb") as file:
            subjects = [str(make_header(decode_header(line[9:].strip().decode()))) for line in file
                        if line.startswith(b"Subject: ")]
    return subjects, drawn[-200:]


def main():
    if shutil.which("neomutt") is None:
        print("test_imap_neomutt: SKIPPED: neomutt is not installed (apt-get install neomutt; scripts/bootstrap --test)")
        return
    directory = tempfile.mkdtemp(prefix="postern-neomutt-")
    try:
        with postern(env={"POSTERN_MAILBOX_POW_REQUIRED": "off"}) as server:
            address = "neomutt@" + domains(server)[0]
            create_account(server, address, password=PASSWORD)
            for raw in ENCODED:
                deliver_smtp("127.0.0.1", server.smtp_port, "app@example.com", [address],
                             f"To: {address}\r\n{raw}".encode())
            muttrc = settings(directory, server, address)
            everything, drawn = tagged_subjects(muttrc, "~A", os.path.join(directory, "all.mbox"))
            check(len(everything) == len(ENCODED), f"NeoMutt signs in and sees the {len(ENCODED)} messages "
                  f"({everything}; {drawn!r})")
            for number, (pattern, found) in enumerate(SEARCHES):
                subjects, drawn = tagged_subjects(muttrc, pattern, os.path.join(directory, f"{number}.mbox"))
                check(sorted(subjects) == sorted(found), f"NeoMutt {pattern}: {found} ({subjects}; {drawn!r})")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    check.finish("test_imap_neomutt")


if __name__ == "__main__":
    main()
