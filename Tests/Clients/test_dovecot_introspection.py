"""A real resource server nobody here wrote (issue 86): Debian's Dovecot with `passdb { driver = oauth2 }` and
`introspection_mode = post` against Postern's `/oauth/introspect` (RFC 7662), authenticated as a confidential
client made with `postern oauth client create --introspection` (HTTP Basic in the introspection URL). An IMAP client
signs in to Dovecot with `AUTHENTICATE XOAUTH2` and a Postern client credentials token (the IMAP user is the token's
`sub`, the client); once the client revokes the token (RFC 7009), Dovecot refuses it, since Postern answers
`{"active":false}`; a made-up token is refused too.

Runs a private Dovecot from a configuration of its own in a temporary directory (as scripts/bench-imap does), on a
loopback port. Skips with a message when `dovecot` is not installed (apt-get install dovecot-imapd;
scripts/bootstrap --test).
"""

import imaplib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, agent_signup, free_port, http, postern
from test_oauth_client_credentials import create_client, form

check = Checks()
DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"


def start_dovecot(root, introspection_url):
    """A Dovecot on a loopback port whose only passdb is oauth2 against `introspection_url`; (process, port)."""
    port = free_port()
    for directory in ("run", "state", "home"):
        os.makedirs(os.path.join(root, directory))
    os.chmod(root, 0o755)
    oauth2 = os.path.join(root, "dovecot-oauth2.conf.ext")
    with open(oauth2, "w") as out:
        out.write(f"""introspection_mode = post
introspection_url = {introspection_url}
username_attribute = sub
active_attribute = active
active_value = true
""")
    config = os.path.join(root, "dovecot.conf")
    with open(config, "w") as out:
        out.write(f"""base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
auth_debug = yes
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = xoauth2 oauthbearer
mail_location = maildir:{root}/home/%u/Maildir
passdb {{
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = {oauth2}
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={root}/home/%u allow_all_users=yes
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
""")
    process = subprocess.Popen([DOVECOT, "-F", "-c", config], stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(root, "master.err"), "w"))
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.05)
    raise SystemExit("dovecot did not start: " + open(os.path.join(root, "master.err")).read()[-2000:])


def xoauth2(port, user, token):
    """Whether Dovecot signs `user` in with `token` over AUTHENTICATE XOAUTH2."""
    imap = imaplib.IMAP4("127.0.0.1", port, timeout=30)
    answers = iter([f"user={user}\x01auth=Bearer {token}\x01\x01".encode()])
    try:
        imap.authenticate("XOAUTH2", lambda challenge: next(answers, b""))
        imap.select("INBOX")
        imap.logout()
        return True
    except imaplib.IMAP4.error:
        return False


def main():
    if not os.path.exists(DOVECOT):
        print("test_dovecot_introspection: SKIPPED: dovecot is not installed (apt-get install dovecot-imapd)")
        return
    with postern() as base, tempfile.TemporaryDirectory(prefix="dovecot-") as root:
        status, body, _ = agent_signup(base, "dv" + str(int(time.time() * 1000))[-10:])
        check(status == 201, f"agent signup ({status})")
        inbox = body["inbox"]
        rs_id, rs_secret = create_client(base, "--name", "dovecot", "--introspection")
        client_id, secret = create_client(base, "--name", "imap agent", "--inbox", inbox)
        parts = urllib.parse.urlsplit(base + "/oauth/introspect")
        credentials = urllib.parse.quote(rs_id, safe="") + ":" + urllib.parse.quote(rs_secret, safe="")
        url = f"{parts.scheme}://{credentials}@{parts.netloc}{parts.path}"
        dovecot, port = start_dovecot(root, url)
        try:
            status, _, issued = form(base, "/oauth/token", {"grant_type": "client_credentials",
                                                            "resource": base + "/jmap"}, auth=(client_id, secret))
            token = issued.get("access_token", "")
            check(status == 200 and token, f"a client credentials token ({status})")
            check(xoauth2(port, client_id, token), "Dovecot signs the client in with XOAUTH2 after introspection")
            check(not xoauth2(port, client_id, token + "x"), "Dovecot refuses a token Postern does not know")
            check(not xoauth2(port, "someone-else", token), "Dovecot refuses the token for another user")
            status, _, _ = form(base, "/oauth/revoke", {"token": token}, auth=(client_id, secret))
            check(status == 200, "the client revokes its token (RFC 7009)")
            check(not xoauth2(port, client_id, token), "Dovecot refuses the revoked token: introspection says inactive")
            with open(os.path.join(root, "dovecot.log")) as log:
                lines = log.read()
            check("Making introspection request" in lines and "Provided token is not valid" in lines,
                  "Dovecot's log: it introspected, and the revoked token came back inactive")
        finally:
            dovecot.terminate()
            dovecot.wait(timeout=30)
    check.finish("test_dovecot_introspection")


if __name__ == "__main__":
    main()
