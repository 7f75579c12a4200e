"""A real relying party nobody here wrote, reading mail with the token it got (issue 88): Debian's Roundcube 1.6
(roundcube-core with roundcube-sqlite3, PHP's built-in server on a loopback port), configured with its generic OAuth
settings only (oauth_provider, oauth_client_id/secret, oauth_auth_uri, oauth_token_uri, oauth_identity_uri,
oauth_scope, oauth_login_redirect) and its IMAP host pointed at Postern's IMAP port on loopback.

The relying party is made with `postern oauth client create --redirect-uri ... --auth client_secret_post
--legacy-no-pkce --mail-access "mail.read mail.send"` (Roundcube 1.6 posts its secret and sends no PKCE; the mail access
lets it ask for mail.read). A message is delivered over SMTP to the owner's inbox, whose address is the owner's email
(Roundcube signs in to IMAP as the email its ID token names). Headless Chromium, as a person: opens Roundcube, is sent
to Postern, signs in, allows the app, and is back in Roundcube, whose message list shows the message's subject:
Roundcube redeemed the code, read the ID token, and signed in to IMAP with `AUTHENTICATE XOAUTH2` and the access token.
Then Roundcube's token is made to look expired in its own session (as after 15 minutes) and the list loaded again:
Roundcube refreshes it at Postern's token endpoint (one refresh token superseded) and signs in to IMAP with the new one.
`owner show` and the audit trail name the app's mail access. Last, the owner revokes the app on /owner, and Roundcube's
next IMAP sign-in with its (unexpired) token is refused: the list shows nothing.

Installs roundcube-core, roundcube-sqlite3 and php-cli with apt-get when they are missing (as root); skips with the
reason printed when that cannot be done.
"""

import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, FormDriver, free_port, postern
from postern_testkit.mail_fixtures import deliver_smtp
from postern_testkit.oidc_mock import audit_events, postern_command

check = Checks()
ROUNDCUBE = "/usr/share/roundcube"
PACKAGES = ["roundcube-core", "roundcube-sqlite3", "php-cli"]
USERNAME, PASSWORD = "annrc", "ann-password-1"
OWNER = USERNAME + "@agents.localhost"  # the agent inbox domain of `serve --profile test`
SUBJECT = "Minutes of the Tuesday meeting"


def installed():
    return os.path.exists(os.path.join(ROUNDCUBE, "index.php")) and shutil.which("php") is not None


def install():
    """None once Roundcube and PHP are here (installed with apt-get if need be); else why not."""
    if installed():
        return None
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return "roundcube-core, roundcube-sqlite3 and php-cli are not installed, and this is no root with apt-get"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    command = ["apt-get", "install", "-o", "DPkg::Lock::Timeout=300", "-y", "-q", "--no-install-recommends",
               *PACKAGES]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=600)
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    return None if installed() else f"apt-get install {' '.join(PACKAGES)} failed: {result.stderr.strip()[-400:]}"


def start_roundcube(root, port, issuer, client_id, secret, imap_port):
    """Roundcube on 127.0.0.1:`port` (PHP's built-in server) with a configuration directory of its own; the process."""
    config = os.path.join(root, "config")
    for directory in ("config", "temp", "logs"):
        os.makedirs(os.path.join(root, directory))
    shutil.copy("/etc/roundcube/defaults.inc.php", config)
    database = os.path.join(root, "roundcube.db")
    with open(os.path.join(ROUNDCUBE, "SQL", "sqlite.initial.sql")) as schema, sqlite3.connect(database) as db:
        db.executescript(schema.read())
    settings = {
        "db_dsnw": f"sqlite:///{database}?mode=0600",
        "imap_host": f"127.0.0.1:{imap_port}",
        "temp_dir": os.path.join(root, "temp") + "/",
        "log_dir": os.path.join(root, "logs") + "/",
        "des_key": os.urandom(12).hex(),
        "plugins": [],
        "skin": "elastic",
        "enable_installer": False,
        "oauth_provider": "generic",
        "oauth_provider_name": "Postern",
        "oauth_client_id": client_id,
        "oauth_client_secret": secret,
        "oauth_auth_uri": f"{issuer}/oauth/authorize",
        "oauth_token_uri": f"{issuer}/oauth/token",
        "oauth_identity_uri": f"{issuer}/oauth/userinfo",
        "oauth_scope": "openid email profile mail.read mail.send",
        "oauth_identity_fields": ["email"],
        "oauth_login_redirect": True,
    }

    def php(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return "[" + ", ".join(php(item) for item in value) + "]"
        return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"

    with open(os.path.join(config, "config.inc.php"), "w") as out:
        out.write("<?php\n$config = [];\n")
        for key, value in settings.items():
            out.write(f"$config['{key}'] = {php(value)};\n")
    log = open(os.path.join(root, "php.log"), "w")
    process = subprocess.Popen(["php", "-S", f"127.0.0.1:{port}", "-t", ROUNDCUBE],
                               env=dict(os.environ, ROUNDCUBE_CONFIG_DIR=config), stdout=log, stderr=subprocess.STDOUT)
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, database
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"php -S exited: {open(log.name).read()[-2000:]}")
            time.sleep(0.1)
    raise SystemExit("php -S did not listen")


def expire_token(database):
    """Makes the access token in every Roundcube session look expired (its `expires`, Unix seconds, set to 1): what
    15 minutes would do. The session is PHP-serialized, base64 in the database; an integer carries no length there."""
    import base64
    with sqlite3.connect(database) as db:
        for sess_id, data in db.execute("SELECT sess_id, vars FROM session").fetchall():
            text = base64.b64decode(data).decode("latin-1")
            changed = re.sub(r's:7:"expires";i:\d+;', 's:7:"expires";i:1;', text)
            if changed != text:
                db.execute("UPDATE session SET vars = ? WHERE sess_id = ?",
                           (base64.b64encode(changed.encode("latin-1")).decode(), sess_id))
                return True
    return False


def owner_inbox(base):
    """Signs the owner in on /owner and makes the inbox `USERNAME`, whose address is the owner's email."""
    browser = FormDriver(str(base))
    location = browser.sign_in("/owner/sign-in", OWNER, PASSWORD)
    status, _, html = browser.request("GET", location or "/owner")
    form = browser.forms(html).form("/owner/inboxes")
    status, _, _ = browser.request("POST", form["action"], browser.hidden(form) | {"username": USERNAME})
    _, _, page = browser.request("GET", "/owner")
    check(status == 303 and OWNER in page, f"the owner holds the inbox {OWNER}, her email ({status})")


def refreshes(base):
    """How many of the relying parties' refresh tokens were superseded (each one refresh)."""
    with sqlite3.connect(os.path.join(base.data, "postern.sqlite3"), timeout=10) as database:
        rows = database.execute("SELECT count(*) FROM oidc_refresh_tokens WHERE superseded_at IS NOT NULL")
        return rows.fetchone()[0]


def main():
    reason = install()
    if reason:
        print(f"SKIP test_oidc_roundcube: {reason}")
        return
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from postern_testkit.browser import make_driver, waiter

    port = free_port()
    with postern(owners=[(OWNER, PASSWORD)]) as base:
        base.env = {}  # postern_command runs the CLI with the server's settings
        check(base.imap_port is not None, "serve's JSON line names the IMAP listener")
        owner_inbox(base)
        refused = deliver_smtp("127.0.0.1", base.smtp_port, "clerk@example.com", [OWNER],
                               f"From: clerk@example.com\r\nTo: {OWNER}\r\nSubject: {SUBJECT}\r\n\r\nSee you.\r\n"
                               .encode())
        check(refused == {}, f"a message delivered over SMTP to {OWNER}")
        redirect = f"http://127.0.0.1:{port}/index.php/login/oauth"
        out = postern_command(base, "oauth", "client", "create", "--name", "Roundcube", "--redirect-uri", redirect,
                              "--auth", "client_secret_post", "--legacy-no-pkce", "--mail-access",
                              "mail.read mail.send")
        fields = dict(line.split(": ", 1) for line in out.splitlines() if line.startswith("client_"))
        client_id, secret = fields["client_id"], fields["client_secret"].split("  ", 1)[0]
        listed = postern_command(base, "oauth", "client", "list")
        check("legacy-no-pkce" in listed and "mail-access mail.read,mail.send" in listed,
              f"oauth client list shows legacy-no-pkce and the mail access ({listed.strip()[:300]})")
        root = tempfile.mkdtemp(prefix="postern-roundcube-")
        os.chmod(root, 0o755)
        roundcube, database = start_roundcube(root, port, str(base), client_id, secret, base.imap_port)
        driver = make_driver(width=1280, height=900)
        try:
            driver.get(f"http://127.0.0.1:{port}/")
            wait = waiter(driver, timeout=30)
            wait.until(lambda d: d.find_elements(By.ID, "sign-in-form"))
            check(driver.current_url.startswith(str(base) + "/owner/sign-in"),
                  f"Roundcube sends a visitor to Postern's sign-in ({driver.current_url[:120]})")
            form = driver.find_element(By.ID, "sign-in-form")
            form.find_element(By.NAME, "email").send_keys(OWNER)
            form.find_element(By.NAME, "password").send_keys(PASSWORD)
            form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            wait.until(lambda d: d.find_elements(By.ID, "approve"))
            words = driver.find_element(By.ID, "claims").text
            check("mail.read" in words and "mail.send" in words,
                  f"the consent page names the mail the app asks to read and send ({words!r})")
            driver.find_element(By.ID, "approve").click()

            def listed_subject(d):
                rows = d.find_elements(By.CSS_SELECTOR, "#messagelist tbody tr")
                return any(SUBJECT in row.text for row in rows)

            wait.until(lambda d: d.current_url.startswith(f"http://127.0.0.1:{port}/") and listed_subject(d))
            check(listed_subject(driver),
                  f"back in Roundcube, its message list shows {SUBJECT!r} (IMAP XOAUTH2 with the token)")
            trail = [e for e in audit_events(base) if e.get("action") == "mailbox.signin"]
            check(any(e.get("target") == OWNER and "oauth" in str(e.get("details")) and "imap" in str(e.get("details"))
                      for e in trail),
                  f"Postern's audit trail has the IMAP sign-in with the OAuth token ({trail[-1:] if trail else []})")

            # As 15 minutes later: Roundcube refreshes its token at the token endpoint, reads IMAP with the new one.
            before = refreshes(base)
            check(expire_token(database), "Roundcube's session holds the token's expiry")
            driver.get(f"http://127.0.0.1:{port}/?_task=mail&_mbox=INBOX")
            wait.until(listed_subject)
            check(refreshes(base) == before + 1, f"Roundcube refreshed its token ({before} -> {refreshes(base)})")
            shown = postern_command(base, "owner", "show", "--email", OWNER)
            check("mail-access mail.read,mail.send" in shown and "legacy-no-pkce" in shown,
                  f"owner show lists the app the owner allowed, with its mail access ({shown.strip()[-300:]})")
            made = [e for e in audit_events(base) if e.get("target") == "oauth client create"]
            check(made and made[-1].get("details", {}).get("mail_access") == "mail.read mail.send",
                  f"the audit line of oauth client create records the mail access ({made[-1:] if made else []})")

            # The owner revokes the app on Postern's /owner: Roundcube's IMAP sign-in with its token is refused at
            # once (the cache of live grants was told).
            row = f'tr.openid-app[data-client-id="{client_id}"]'
            driver.get(str(base) + "/owner")
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, row + " form.revoke-openid-app button"))
            driver.find_element(By.CSS_SELECTOR, row + " form.revoke-openid-app button").click()
            wait.until(lambda d: d.current_url.startswith(str(base) + "/owner")
                       and not d.find_elements(By.CSS_SELECTOR, row))

            def refused_sign_ins():
                return [e for e in audit_events(base) if e.get("action") == "mailbox.signin_failed"
                        and "oauth" in str(e.get("details")) and e.get("target") == OWNER]

            refused_before = len(refused_sign_ins())
            driver.get(f"http://127.0.0.1:{port}/?_task=mail&_mbox=INBOX")
            # Each look runs `postern audit`: every half second, not at the browser waits' pace.
            WebDriverWait(driver, 30, poll_frequency=0.5).until(lambda d: len(refused_sign_ins()) > refused_before)
            check(not listed_subject(driver),
                  f"after the owner revoked the app, Roundcube's IMAP sign-in is refused and lists nothing "
                  f"({driver.current_url[:100]})")
        except Exception as error:  # the test's failure, with what Roundcube logged
            check(False, f"the walk: {type(error).__name__}: {str(error)[:300]} at {driver.current_url[:160]}")
        finally:
            driver.quit()
            roundcube.terminate()
            roundcube.wait(timeout=10)
            if check.failures:
                for name in ("php.log", "logs/errors.log"):
                    path = os.path.join(root, name)
                    if os.path.exists(path):
                        print(f"--- {name}\n" + open(path).read()[-3000:])
            shutil.rmtree(root, ignore_errors=True)
    check.finish("test_oidc_roundcube")


if __name__ == "__main__":
    main()
