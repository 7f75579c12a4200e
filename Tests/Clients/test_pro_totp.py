"""A Pro user's two-step sign-in (issue 88 item 3) against a real `postern serve --profile test`, with PyPI's `pyotp`
(unmodified) as the authenticator app, as test_owner_totp.py does for owners: a Pro user signs in to the web inbox,
sets up TOTP on /inbox/two-step from the page's `otpauth://` URI (read by pyotp.parse_uri), confirms it with pyotp's
code and keeps the ten recovery codes shown once. A new browser's password sign-in is then sent to the second step
(/inbox/sign-in/second-step): pyotp's code opens the session; the same code on a second sign-in is refused (a code
signs in once); a recovery code opens one session and is refused the next time; Mail.td's POST /api/user/login
answers the password with the 401 of a wrong one while the factor is on (a password alone makes no Pro JWT, nor a
tm_pro_ token that would skip the code). Finally `postern pro mfa reset` removes the factor (on the audit trail) and
the password signs in alone again, at the web inbox and the API. On SQLite and on PostgreSQL, where
the stored secret is sealed with POSTERN_KEY_SECRET (not the secret's bytes)."""

import base64
import html
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from postern_testkit.forms import FormDriver
from postern_testkit.postgres import BACKENDS, psql
from postern_testkit.server import install_packages

install_packages("pyotp", ["pyotp==2.9.0"], ["pyotp"])
import pyotp  # noqa: E402

check = Checks()
EMAIL = "bea@example.com"
PASSWORD = "a long enough password"
SECOND_STEP = "/inbox/sign-in/second-step"


def post_form(driver, page_html, action, **fields):
    form = driver.forms(page_html).form(action)
    return driver.request("POST", action, driver.hidden(form) | fields)


def sign_in(driver):
    """The web inbox's Pro sign-in form with the password; where it sends the browser next."""
    status, _, page = driver.request("GET", "/inbox/sign-in")
    assert status == 200, f"sign-in page: {status}"
    form = next(form for form in driver.forms(page).forms if form["id"] == "pro-sign-in-form")
    status, location, _ = driver.request(
        "POST", "/inbox/sign-in", driver.hidden(form) | {"email": EMAIL, "password": PASSWORD})
    assert status == 303, f"sign-in: {status}"
    return location


def session(driver):
    return any(cookie.startswith("postern_inbox=") for cookie in driver.last_headers.get_all("Set-Cookie") or [])


def second_step(base, code):
    """A new browser: the password, then `code` at the second step; (where the password sent it, the answer's
    status, its Location, whether a session cookie was set)."""
    driver = FormDriver(base)
    first = sign_in(driver)
    status, _, page = driver.request("GET", SECOND_STEP)
    assert status == 200, f"second step page: {status}"
    status, location, _ = post_form(driver, page, SECOND_STEP, code=code)
    return first, status, location, session(driver)


def command(base, *arguments):
    binary = os.environ.get("POSTERN_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug",
                                                        "postern"))
    return subprocess.run([binary, *arguments, "--data-dir", base.data], env=dict(os.environ, **base.backend_env),
                          capture_output=True, text=True)


def api_login(base):
    return http(base, "POST", "/api/user/login", {"email": EMAIL, "password": PASSWORD})[0]


def run(backend):
    with postern(pro_users=[(EMAIL, PASSWORD)], backend=backend) as base:
        run_on(base)


def run_on(base):
    user = FormDriver(base)
    check(sign_in(user) == "/inbox", "without a second factor the password alone signs in")
    check(api_login(base) == 200, "without a second factor POST /api/user/login makes a Pro JWT")
    status, _, page = user.request("GET", "/inbox/two-step")
    check(status == 200 and 'data-state="off"' in page, "/inbox/two-step: off")
    status, _, page = post_form(user, page, "/inbox/two-step/setup")
    uri = html.unescape(re.search(r'id="totp-uri" href="([^"]+)"', page).group(1))
    check(status == 200 and 'id="totp-qr"' in page and "<svg" in page, "setup shows the QR code and the URI")
    app = pyotp.parse_uri(uri)
    check(isinstance(app, pyotp.TOTP) and app.digits == 6 and app.interval == 30 and app.name == EMAIL
          and app.issuer == "127.0.0.1", f"pyotp reads the URI: {uri.split('?')[0]}")
    status, _, page = post_form(user, page, "/inbox/two-step/confirm", code=app.now())
    codes = re.findall(r"<li><code>([a-z2-7]{5}-[a-z2-7]{5})</code></li>", page)
    check(status == 200 and len(codes) == 10 and len(set(codes)) == 10, "confirmed: ten recovery codes shown once")
    if base.backend == "postgres":
        stored = psql("SELECT encode(secret, 'hex') FROM pro_user_totp", base.backend_env["POSTERN_DATABASE_URL"])
        plain = base64.b32decode(app.secret + "=" * (-len(app.secret) % 8)).hex()
        check(len(stored) == 1 and plain not in stored[0][0], "PostgreSQL keeps the secret sealed, not its bytes")

    # The confirmation used this step: the next step's code (within the window) signs in.
    code = app.at(time.time() + 30)
    first, status, location, signed_in = second_step(base, code)
    check(first == SECOND_STEP, "the password sends the browser to the second step, no session yet")
    check(status == 303 and location == "/inbox" and signed_in, "pyotp's code opens the session")
    _, status, _, signed_in = second_step(base, code)
    check(status == 401 and not signed_in, "the same code on a second sign-in is refused")
    _, status, location, signed_in = second_step(base, codes[0].upper())
    check(status == 303 and location == "/inbox" and signed_in, "a recovery code signs in")
    _, status, _, signed_in = second_step(base, codes[0])
    check(status == 401 and not signed_in, "the same recovery code is refused the next time")

    check(api_login(base) == 401, "with the factor on, POST /api/user/login refuses the password alone")

    shown = command(base, "pro", "show", "--email", EMAIL)
    check("two-step sign-in: on (TOTP; 9 recovery codes left)" in shown.stdout, "pro show: on, nine codes left")
    reset = command(base, "pro", "mfa", "reset", "--email", EMAIL)
    check(reset.returncode == 0 and "second factor removed" in reset.stdout, "postern pro mfa reset")
    audit = command(base, "audit", "--json")
    for action in ("pro.mfa_enabled", "pro.recovery_code_used", "pro.signin_failed", "pro.mfa_reset"):
        check(f'"{action}"' in audit.stdout, f"{action} is on the audit trail")
    check(sign_in(FormDriver(base)) == "/inbox" and api_login(base) == 200,
          "after the reset the password signs in alone, at the web inbox and the API")


for backend in BACKENDS:
    check.context = f"[{backend}] "
    run(backend)

check.finish("test_pro_totp")
