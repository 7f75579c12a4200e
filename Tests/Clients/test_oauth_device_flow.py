"""The device authorization grant (RFC 8628, issue 86 item 1) with a real client nobody here wrote: oauthlib's
`DeviceClient` (PyPI, unmodified) prepares every request and reads every answer while the owner approves in headless
Chromium on Postern's own pages.

- A public client registers (RFC 7591) with the device-code grant and no redirect URI; the metadata lists
  `device_authorization_endpoint` and the grant type.
- The client starts a device authorization and polls in a thread, at the interval, waiting 5 s more after each
  `slow_down`, while Chromium opens `verification_uri_complete`, is sent to sign in and back, finds the code filled in,
  continues, sees the consent page showing that code, names a new inbox and allows: the client gets an access token and
  a refresh token; /owner lists the app among the connected apps; the refresh token rotates.
- Refusals, each the RFC's error code through oauthlib: the redeemed device code again (`invalid_grant`), two polls
  one after the other (`slow_down`, and the next one sooner than 1 + 5 s `slow_down` again), a code the owner denies
  in Chromium (`access_denied`), a code past its lifetime (`expired_token`, on a second server whose codes live 5 s),
  and guessed user codes: five wrong entries answered "no device is waiting", the sixth refused unread (429), the right
  code after it too.
- `postern agent login --device --json` signs in the same way while Chromium approves the code it prints.

Self-contained: installs oauthlib into .build/client-sdks/; runs against .build/debug/postern (or $POSTERN_BIN).
"""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, http, install_packages, postern

check = Checks()
BINARY = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
OWNER = ("owner@example.com", "correct horse battery")
GRANT = "urn:ietf:params:oauth:grant-type:device_code"
# Loopback http: oauthlib refuses plain http unless told this is a test.
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"


def form(base, url, body):
    """(status, JSON) of a form POST of the urlencoded `body` to `url`."""
    status, _, answer = http(base, "POST", url, body.encode(),
                             headers={"Content-Type": "application/x-www-form-urlencoded"})
    return status, answer


def register(base, name):
    """A public client for the device-code and refresh grants; its id."""
    status, _, body = http(base, "POST", "/oauth/register", {"client_name": name, "grant_types": [GRANT, "refresh_token"]})
    check(status == 201 and "redirect_uris" in body, f"RFC 7591 registration with the device-code grant ({status})")
    return body["client_id"]


def start(base, client, resource):
    """The device authorization response for oauthlib's `client`: its parameters, POSTed as a form."""
    uri = client.prepare_request_uri(base + "/oauth/device_authorization", scope=["mail.read"], resource=resource)
    status, body = form(base, base + "/oauth/device_authorization", urllib.parse.urlsplit(uri).query)
    check(status == 200 and {"device_code", "user_code", "verification_uri", "verification_uri_complete",
                             "expires_in", "interval"} <= set(body), f"device authorization ({status} {body})")
    return body


def poll_once(base, client, device_code):
    """(error code or None, the token dict) of one poll, read by oauthlib."""
    from oauthlib.oauth2.rfc6749.errors import OAuth2Error
    _, answer = form(base, base + "/oauth/token", client.prepare_request_body(device_code, include_client_id=True))
    try:
        return None, client.parse_request_body_response(json.dumps(answer))
    except OAuth2Error as error:
        return error.error, None


def poll_until_answered(base, client, started, seen):
    """Polls as RFC 8628 section 3.5 says (the interval, 5 s more after slow_down); appends each error to `seen`;
    returns the tokens, or None when refused."""
    interval, deadline = started["interval"], time.monotonic() + started["expires_in"]
    while time.monotonic() < deadline:
        time.sleep(interval)
        error, tokens = poll_once(base, client, started["device_code"])
        if error is None:
            return tokens
        seen.append(error)
        if error == "slow_down":
            interval += 5
        elif error != "authorization_pending":
            return None
    return None


class Owner:
    """Chromium as the owner."""

    def __init__(self, base):
        from postern_testkit.browser import make_driver, waiter
        self.base, self.driver = base, make_driver(width=1280, height=1000)
        self.wait = waiter(self.driver)

    def text(self):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.TAG_NAME, "body").text

    def submit(self, form_id, values, button=None):
        from selenium.webdriver.common.by import By
        from postern_testkit.browser import click_through, fill_form
        found = fill_form(self.driver, form_id, values)
        click_through(self.driver, found.find_element(By.ID, button) if button else
                      found.find_element(By.CSS_SELECTOR, "button[type=submit]"))

    def open_link(self, url, user_code):
        """Opens verification_uri_complete: sign-in (first time), then the filled-in code form, continued."""
        from selenium.webdriver.common.by import By
        self.driver.get(url)
        if "/owner/sign-in" in self.driver.current_url:
            self.submit("sign-in-form", {"email": OWNER[0], "password": OWNER[1]})
        self.wait.until(lambda d: "/owner/device" in d.current_url)
        field = self.driver.find_element(By.ID, "user_code")
        check(field.get_attribute("value") == user_code, f"the link fills the code in ({field.get_attribute('value')})")
        from postern_testkit.browser import click_through
        click_through(self.driver, self.driver.find_element(By.ID, "continue"))

    def enter(self, typed):
        """Types `typed` on /owner/device and continues; the page's text."""
        self.driver.get(self.base + "/owner/device")
        self.submit("device-form", {"user_code": typed})
        return self.text()

    def answer(self, decision, new_inbox=None):
        """Answers the consent page on screen (approve or deny); the answer page's text."""
        from selenium.webdriver.common.by import By
        self.submit("consent-form", {"new_inbox": new_inbox} if new_inbox else {}, button=decision)
        return self.driver.find_element(By.ID, "device-answered").text


def main():
    install_packages("oauthlib", ["oauthlib==3.3.1"], ["oauthlib"])
    from oauthlib.oauth2 import DeviceClient

    fast = {"POSTERN_OAUTH_DEVICE_INTERVAL_SECONDS": "1"}
    short = dict(fast, POSTERN_OAUTH_DEVICE_CODE_SECONDS="5")
    with postern(env=fast, owners=[OWNER]) as base, postern(env=short) as other:
        resource = base + "/mcp"
        # A code on the second server that will have expired by the end.
        late_client = DeviceClient(register(other, "late device"))
        late = start(other, late_client, other + "/mcp")
        late_started = time.monotonic()

        status, _, metadata = http(base, "GET", "/.well-known/oauth-authorization-server")
        check(metadata.get("device_authorization_endpoint") == base + "/oauth/device_authorization"
              and GRANT in metadata.get("grant_types_supported", []), "RFC 8414 metadata lists the device flow")
        client = DeviceClient(register(base, "Device test"))

        # Polled too fast: slow_down, and the code's interval is now 6 s.
        hasty = start(base, client, resource)
        first, _ = poll_once(base, client, hasty["device_code"])
        second, _ = poll_once(base, client, hasty["device_code"])
        check((first, second) == ("authorization_pending", "slow_down"), f"a second poll at once: slow_down ({second})")
        time.sleep(1.2)
        third, _ = poll_once(base, client, hasty["device_code"])
        check(third == "slow_down", f"1 s later, under the new interval of 1 + 5 s: slow_down again ({third})")

        owner = Owner(base)
        try:
            started = start(base, client, resource)
            code = started["user_code"]
            check(started["verification_uri_complete"] == base + "/owner/device?user_code=" + code
                  and len(code) == 9 and code[4] == "-" and set(code.replace("-", "")) <= set("BCDFGHJKLMNPQRSTVWXZ"),
                  f"a user code of RFC 8628's consonants, BCDF-GHJK ({code})")
            seen, result = [], {}
            poller = threading.Thread(target=lambda: result.update(
                tokens=poll_until_answered(base, client, started, seen)))
            poller.start()
            owner.open_link(started["verification_uri_complete"], code)
            check(code in owner.text() and "Device test" in owner.text(), "the consent page shows the client and the code")
            check("is signed in" in owner.answer("approve", new_inbox="device-inbox"), "the owner allows in Chromium")
            poller.join(timeout=30)
            tokens = result.get("tokens") or {}
            check(tokens.get("access_token") and tokens.get("refresh_token") and tokens.get("scope") == ["mail.read"],
                  f"oauthlib gets the tokens after {seen.count('authorization_pending')} pending poll(s) ({sorted(tokens)})")
            check(poll_once(base, client, started["device_code"])[0] == "invalid_grant",
                  "the device code again: invalid_grant")
            refreshed = form(base, base + "/oauth/token", client.prepare_refresh_body(
                refresh_token=tokens.get("refresh_token"), client_id=client.client_id))
            check(refreshed[0] == 200 and refreshed[1].get("refresh_token") not in (None, tokens.get("refresh_token")),
                  "the refresh token rotates")
            owner.driver.get(base + "/owner")
            check("Device test" in owner.text(), "/owner lists the device among the connected apps")

            # Denied in Chromium.
            denied = start(base, client, resource)
            owner.enter(denied["user_code"].lower().replace("-", " "))
            check("You denied" in owner.answer("deny"), "the owner denies, the code typed in lower case with a space")
            check(poll_once(base, client, denied["device_code"])[0] == "access_denied", "a denied code: access_denied")

            # postern agent login --device, approved in Chromium.
            cli = subprocess.Popen([BINARY, "agent", "login", "--device", "--url", base, "--scope", "mail.read",
                                    "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            line = cli.stderr.readline()
            check("/owner/device" in line and "enter the code" in line, f"the CLI shows the page and the code ({line!r})")
            owner.enter(line.rsplit(" ", 1)[1].strip())
            check("is signed in" in owner.answer("approve"), "the owner allows the CLI's code")
            out, _ = cli.communicate(timeout=30)
            printed = json.loads(out or "{}")
            check(cli.returncode == 0 and printed.get("access_token") and printed.get("refresh_token"),
                  f"postern agent login --device prints the tokens ({sorted(printed)})")

            # Guessing: five wrong entries, then every entry refused unread, the right one too.
            guessed = start(base, client, resource)
            wrong = [c for c in ["BBBB-BBBB", "CCCC-CCCC", "DDDD-DDDD", "FFFF-FFFF", "GGGG-GGGG", "HHHH-HHHH"]
                     if c != guessed["user_code"]][:5]
            answers = [owner.enter(c) for c in wrong]
            check(all("No device is waiting" in a for a in answers), "five wrong codes: no device is waiting")
            check("Too many wrong codes" in owner.enter("JJJJ-JJJJ"), "the sixth wrong entry is refused")
            check("Too many wrong codes" in owner.enter(guessed["user_code"]), "the right code after it is refused too")
            check(poll_once(base, client, guessed["device_code"])[0] == "authorization_pending",
                  "the guessed-at code is still pending: nothing was approved")
        finally:
            owner.driver.quit()

        time.sleep(max(0, late["expires_in"] - (time.monotonic() - late_started)))
        check(poll_once(other, late_client, late["device_code"])[0] == "expired_token",
              "a code past its lifetime: expired_token")
    check.finish("test_oauth_device_flow")


if __name__ == "__main__":
    main()
