"""Owners' two-step sign-in (issue 88 item 3) against a real `postern serve --profile test`, with PyPI's `pyotp`
(unmodified) as the authenticator app: an owner signs in, sets up TOTP on /owner/two-step from the page's
`otpauth://` URI (read by pyotp.parse_uri), confirms it with pyotp's code and keeps the ten recovery codes shown once.
A new browser's password sign-in is then sent to the second step: pyotp's code opens the session; the same code on a
second sign-in is refused (a code signs in once); a recovery code opens one session and is refused the next time.
Finally `postern owner mfa reset` removes the factor and the password signs in alone again. On SQLite and on
PostgreSQL, where the stored secret is sealed with POSTERN_KEY_SECRET (not the secret's bytes)."""

import base64
import html
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit.forms import FormDriver
from postern_testkit.postgres import BACKENDS, psql
from postern_testkit.server import install_packages

install_packages("pyotp", ["pyotp==2.9.0"], ["pyotp"])
import pyotp  # noqa: E402

check = Checks()
EMAIL = "ada@example.com"
PASSWORD = "a long enough password"
SECOND_STEP = "/owner/sign-in/second-step"


def post_form(driver, page_html, action, **fields):
    form = driver.forms(page_html).form(action)
    return driver.request("POST", action, driver.hidden(form) | fields)


def second_step(base, code):
    """A new browser: the password, then `code` at the second step; (where the password sent it, the answer's
    status, its Location, whether a session cookie was set)."""
    driver = FormDriver(base)
    first = driver.sign_in("/owner/sign-in?next=/owner", EMAIL, PASSWORD)
    status, _, page = driver.request("GET", SECOND_STEP)
    assert status == 200, f"second step page: {status}"
    status, location, _ = post_form(driver, page, SECOND_STEP, code=code)
    signed_in = any(cookie.startswith("postern_owner=") for cookie in driver.last_headers.get_all("Set-Cookie") or [])
    return first, status, location, signed_in


def run(backend):
    with postern(owners=[(EMAIL, PASSWORD)], backend=backend) as base:
        run_on(base)


def run_on(base):
    owner = FormDriver(base)
    check(owner.sign_in("/owner/sign-in?next=/owner", EMAIL, PASSWORD) == "/owner",
          "without a second factor the password alone signs in")
    status, _, page = owner.request("GET", "/owner/two-step")
    check(status == 200 and 'data-state="off"' in page, "/owner/two-step: off")
    status, _, page = post_form(owner, page, "/owner/two-step/setup")
    uri = html.unescape(re.search(r'id="totp-uri" href="([^"]+)"', page).group(1))
    check(status == 200 and 'id="totp-qr"' in page and "<svg" in page, "setup shows the QR code and the URI")
    app = pyotp.parse_uri(uri)
    check(isinstance(app, pyotp.TOTP) and app.digits == 6 and app.interval == 30 and app.name == EMAIL
          and app.issuer == "127.0.0.1", f"pyotp reads the URI: {uri.split('?')[0]}")
    status, _, page = post_form(owner, page, "/owner/two-step/confirm", code=app.now())
    codes = re.findall(r"<li><code>([a-z2-7]{5}-[a-z2-7]{5})</code></li>", page)
    check(status == 200 and len(codes) == 10 and len(set(codes)) == 10, "confirmed: ten recovery codes shown once")
    if base.backend == "postgres":
        stored = psql("SELECT encode(secret, 'hex') FROM owner_totp", base.backend_env["POSTERN_DATABASE_URL"])
        plain = base64.b32decode(app.secret + "=" * (-len(app.secret) % 8)).hex()
        check(len(stored) == 1 and plain not in stored[0][0], "PostgreSQL keeps the secret sealed, not its bytes")

    # The confirmation used this step: the next step's code (within the window) signs in.
    code = app.at(time.time() + 30)
    first, status, location, signed_in = second_step(base, code)
    check(first == SECOND_STEP, "the password sends the browser to the second step, no session yet")
    check(status == 303 and location == "/owner" and signed_in, "pyotp's code opens the session")
    _, status, _, signed_in = second_step(base, code)
    check(status == 401 and not signed_in, "the same code on a second sign-in is refused")
    _, status, location, signed_in = second_step(base, codes[0].upper())
    check(status == 303 and location == "/owner" and signed_in, "a recovery code signs in")
    _, status, _, signed_in = second_step(base, codes[0])
    check(status == 401 and not signed_in, "the same recovery code is refused the next time")

    binary = os.environ.get("POSTERN_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug",
                                                        "postern"))
    reset = subprocess.run([binary, "owner", "mfa", "reset", "--data-dir", base.data, "--email", EMAIL],
                           env=dict(os.environ, **base.backend_env), capture_output=True, text=True)
    check(reset.returncode == 0 and "second factor removed" in reset.stdout, "postern owner mfa reset")
    audit = subprocess.run([binary, "audit", "--data-dir", base.data, "--json"],
                           env=dict(os.environ, **base.backend_env), capture_output=True, text=True)
    check('"owner.mfa_reset"' in audit.stdout, "the reset is on the audit trail")
    check(FormDriver(base).sign_in("/owner/sign-in?next=/owner", EMAIL, PASSWORD) == "/owner",
          "after the reset the password signs in alone")

for backend in BACKENDS:
    check.context = f"[{backend}] "
    run(backend)

check.finish("test_owner_totp")
