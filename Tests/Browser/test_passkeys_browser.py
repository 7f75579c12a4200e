#!/usr/bin/env python3
"""Passkeys in a real browser (issue 56): headless Chromium's virtual authenticator (CTAP2, internal transport,
resident keys, user verification) driven through the pages with JavaScript on, the pages' own script
(`passkeys.js`) running every ceremony.

Starts its own `postern serve --profile test` (postern_testkit's `postern`) whose public URL is
http://localhost:PORT: browsers run WebAuthn only on a secure context and never on an IP address, and Chromium counts
`localhost` as secure over plain http. The RP ID is `localhost`.

- Owners, for an ES256, an EdDSA and an RS256 credential: sign in with the password, add a passkey under "Sign-in
  methods" on /owner (the stored algorithm and credential id are the authenticator's), sign out, sign in with the
  passkey button alone (no email typed); once also through the email field's autofill (conditional mediation).
- A Pro user, the same three on /inbox: register from the Pro dashboard, sign out, the passkey alone signs in; once
  also through the email field's autofill on /inbox/sign-in.
- A credential whose signature counter is set back through the virtual authenticator (removed and added again with
  a lower signCount) is refused with the generic page, marked possibly cloned and audited.
- On the way through /oauth/authorize (an app registered as any registers), the passkey alone signs the owner in and
  the app's consent page follows.
- axe-core finds no serious or critical violation on the sign-in pages, "Sign-in methods" and the refusal page.

Which algorithm Chromium's authenticator picks is the first of the page's `pubKeyCredParams` it supports (EdDSA, as
Postern offers it first); to make one of another algorithm the test narrows that list inside the page, through
WebDriver, before it presses "Add a passkey" (``only_algorithm``): the server offers all three as always. Likewise,
Chromium's virtual authenticator answers an autofill (conditional) request at once, so a sign-in page would sign in
by itself; the test hides conditional mediation from the pages (as a browser without it does) except where it tests
the autofill.

    POSTERN_BIN=.build/debug/postern python3 Tests/Browser/test_passkeys_browser.py

One browser and one server for the whole walk; prints the Chromium version. Exit status 0 when every check passed.
"""

import base64
import collections
import hashlib
import json
import os
import sqlite3
import sys
import time
import unittest
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Credential, VirtualAuthenticatorOptions

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import postern  # noqa: E402
from postern_testkit.accessibility import assert_accessible  # noqa: E402
from postern_testkit.browser import click_through, fill_form, make_driver, run_walks, waiter  # noqa: E402
from postern_testkit.ports import free_port  # noqa: E402

OWNER = ("ada@example.com", "correct horse battery")
PRO = ("pro@example.com", "pro horse battery")


class Family(collections.namedtuple("Family", "name sign_in form person methods cookie")):
    """A page family's doors: its sign-in page and password form, its person (email, password), the page with its
    "Sign-in methods", and its session cookie."""


OWNERS = Family("owner", "/owner/sign-in", "sign-in-form", OWNER, "/owner", "postern_owner")
PRO_USERS = Family("Pro", "/inbox/sign-in", "pro-sign-in-form", PRO, "/inbox/dashboard", "postern_inbox")
ALGORITHMS = [("ES256", -7), ("EdDSA", -8), ("RS256", -257)]
REFUSED = "That passkey could not be used"

# Run before any script of every page while installed: the browser says it has no conditional mediation, so the
# pages' script starts no autofill request (which Chromium's virtual authenticator would answer at once).
NO_CONDITIONAL = """
if (window.PublicKeyCredential) {
  Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable',
    { value: function () { return Promise.resolve(false); }, configurable: true });
}
"""

# Run in the page before "Add a passkey": the creation options the page got from the server keep only `alg`.
ONLY_ALGORITHM = """
const alg = arguments[0], create = navigator.credentials.create.bind(navigator.credentials);
navigator.credentials.create = function (options) {
  const offered = options.publicKey.pubKeyCredParams;
  options.publicKey.pubKeyCredParams = offered.filter(function (p) { return p.alg === alg; });
  return create(options);
};
"""

# Takes the autocomplete attribute off every field whose value ends in the `webauthn` token (which axe-core 3.1.1 does
# not know, see PasskeysInChromium.accessible); returns the values as they were.
WITHOUT_WEBAUTHN_TOKEN = """
const found = [];
for (const e of document.querySelectorAll('[autocomplete$=" webauthn"]')) {
  found.push(e.getAttribute('autocomplete'));
  e.removeAttribute('autocomplete');
}
return found;
"""


class PasskeysInChromium(unittest.TestCase):
    """One server, one browser; the tests run in name order."""

    @classmethod
    def setUpClass(cls):
        started = time.monotonic()
        port = free_port()
        cls.public = "http://localhost:%d" % port
        cls.context = postern({"POSTERN_PORT": str(port), "POSTERN_PUBLIC_URL": cls.public, "POSTERN_SMTP": "off"},
                              owners=[OWNER], pro_users=[PRO])
        cls.server = cls.context.__enter__()
        cls.driver = make_driver()
        cls.wait = waiter(cls.driver)
        print("Chromium %s (chromedriver %s)" % (
            cls.driver.capabilities.get("browserVersion"),
            cls.driver.capabilities.get("chrome", {}).get("chromedriverVersion", "?").split(" ")[0]), file=sys.stderr)
        cls.no_conditional = cls.driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument", {"source": NO_CONDITIONAL})["identifier"]
        cls.checked = set()
        print("setup: %.1f s" % (time.monotonic() - started), file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.context.__exit__(None, None, None)

    def tearDown(self):
        # Each walk starts signed out and with no authenticator, whatever the one before left.
        self.driver.delete_all_cookies()
        if self.driver.virtual_authenticator_id is not None:
            self.driver.remove_virtual_authenticator()

    # --- what the test does beside the browser

    def database(self):
        return sqlite3.connect(os.path.join(self.server.data, "postern.sqlite3"), timeout=10)

    def stored(self, credential):
        """(algorithm, sign_count, last_used_at, cloned_at) of the passkey of the authenticator's `credential`."""
        raw = base64.urlsafe_b64decode(credential.id + "=" * (-len(credential.id) % 4))
        with self.database() as database:
            row = database.execute(
                "SELECT algorithm, sign_count, last_used_at, cloned_at FROM passkey_credentials"
                " WHERE credential_id = ?", (raw,)).fetchone()
        self.assertIsNotNone(row, "the server keeps the authenticator's credential")
        return row

    def audited(self, action):
        """The details (parsed) of every audit event `action`, oldest first."""
        with self.database() as database:
            rows = database.execute("SELECT details FROM audit_events WHERE action = ? ORDER BY id", (action,))
            return [json.loads(details or "{}") for (details,) in rows]

    # --- the browser

    def authenticator(self):
        """A fresh virtual authenticator (the only one): CTAP2, internal, resident keys, user verification."""
        self.driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
            protocol=VirtualAuthenticatorOptions.Protocol.CTAP2,
            transport=VirtualAuthenticatorOptions.Transport.INTERNAL,
            has_resident_key=True, has_user_verification=True, is_user_verified=True))

    def only_credential(self):
        credentials = self.driver.get_credentials()
        self.assertEqual(len(credentials), 1, "the authenticator holds one credential")
        return credentials[0]

    @staticmethod
    def with_count(credential, count):
        """`credential` (the authenticator's) with its signature counter at `count`: the same id, key and user."""
        data = credential.to_dict()
        data["signCount"] = count
        return Credential.from_dict(data)

    def accessible(self, name):
        """axe on the current page, once per `name`. A sign-in page's email field says
        `autocomplete="username webauthn"`
        (the login name, and the `webauthn` token by which the browser offers passkeys in its autofill: what the HTML
        standard and the WebAuthn guides prescribe). The axe-core that axe-selenium-python ships (3.1.1, 2018) predates
        that token and also refuses `username` on an email field; so the test pins such a field's value to exactly
        that, and axe checks the page with the field's autocomplete attribute taken away (the rest of its rules,
        label and all, still run on it)."""
        if name in self.checked:
            return
        self.checked.add(name)
        tokens = self.driver.execute_script(WITHOUT_WEBAUTHN_TOKEN)
        self.assertTrue(all(value == "username webauthn" for value in tokens), tokens)
        assert_accessible(self.driver, name)

    def cookies(self):
        return {c["name"] for c in self.driver.get_cookies()}

    def submit(self, form_id, values):
        click_through(self.driver, fill_form(self.driver, form_id, values).find_element(
            By.CSS_SELECTOR, "button[type=submit]"))

    def path(self):
        return "/" + self.driver.current_url.split("/", 3)[3]

    def register(self, algorithm, name):
        """On a page with "Sign-in methods": adds a passkey named `name` whose key is of COSE `algorithm`; returns
        the authenticator's credential."""
        self.driver.execute_script(ONLY_ALGORITHM, algorithm)
        self.submit("passkey-register", {"name": name})
        self.assertTrue(self.driver.find_element(By.ID, "notice").text.startswith("Passkey added"))
        rows = [r.find_element(By.CLASS_NAME, "passkey-name").text
                for r in self.driver.find_elements(By.CSS_SELECTOR, "#passkeys tr.passkey")]
        self.assertIn(name, rows)
        credential = self.only_credential()
        self.assertEqual(self.stored(credential)[0], algorithm, "the stored key is of the algorithm asked for")
        self.assertEqual(self.stored(credential)[1], credential.sign_count)
        return credential

    def sign_out(self, sign_in_page):
        click_through(self.driver, self.driver.find_element(By.ID, "sign-out"))
        self.driver.get(self.public + sign_in_page)
        self.assertTrue(self.driver.find_element(By.ID, "passkey-button").is_displayed(), "the passkey button shows")

    def passkey_sign_in(self):
        """Presses "Sign in with a passkey" and returns once its answer's page is there."""
        click_through(self.driver, self.driver.find_element(By.ID, "passkey-button"))

    def walk(self, family, label, algorithm):
        """With a fresh authenticator: `family`'s person signs in with the password, adds a passkey of COSE
        `algorithm` under "Sign-in methods", signs out, and signs in with the passkey button alone. Returns the
        authenticator's credential; the person is signed in."""
        what = "%s, %s" % (family.name, label)
        self.authenticator()
        self.driver.get(self.public + family.sign_in)
        self.accessible("%s sign-in" % family.name)
        self.submit(family.form, {"email": family.person[0], "password": family.person[1]})
        self.driver.get(self.public + family.methods)
        credential = self.register(algorithm, "%s %s key" % (family.name, label))
        self.accessible("%s sign-in methods" % family.name)

        self.sign_out(family.sign_in)
        self.assertNotIn(family.cookie, self.cookies(), "%s: signed out" % what)
        self.passkey_sign_in()
        self.assertIn(family.cookie, self.cookies(), "%s: the passkey alone signs in" % what)
        self.driver.get(self.public + family.methods)
        self.assertEqual(self.driver.find_element(By.ID, "signed-in-as").text, family.person[0], what)
        _, count, used, _ = self.stored(credential)
        self.assertIsNotNone(used, "%s: last used is recorded" % what)
        self.assertEqual(count, self.only_credential().sign_count, "%s: the stored counter is the device's" % what)
        return credential

    def autofill_signs_in(self, family, landing):
        """Signed in: signs out to `family`'s sign-in page with conditional mediation on, where the email field's
        autofill (the virtual authenticator answers it at once) signs the person in by itself, to `landing`."""
        self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": self.no_conditional})
        try:
            click_through(self.driver, self.driver.find_element(By.ID, "sign-out"))
            self.wait.until(lambda d: self.path() == landing and family.cookie in self.cookies(),
                            "%s: the autofill signs in at %s" % (family.name, family.sign_in))
        finally:
            type(self).no_conditional = self.driver.execute_cdp_cmd(
                "Page.addScriptToEvaluateOnNewDocument", {"source": NO_CONDITIONAL})["identifier"]

    # --- the walks

    def test_1_owner_registers_and_signs_in_with_each_algorithm(self):
        started = time.monotonic()
        for label, algorithm in ALGORITHMS:
            self.walk(OWNERS, label, algorithm)
            if label == "RS256":
                self.autofill_signs_in(OWNERS, "/owner")
            click_through(self.driver, self.driver.find_element(By.ID, "sign-out"))
            self.driver.remove_virtual_authenticator()
        print("owner walk: %.1f s" % (time.monotonic() - started), file=sys.stderr)

    def test_2_pro_user_registers_and_signs_in_with_each_algorithm(self):
        started = time.monotonic()
        for label, algorithm in ALGORITHMS:
            self.walk(PRO_USERS, label, algorithm)
            if label == "RS256":
                self.autofill_signs_in(PRO_USERS, "/inbox")
            click_through(self.driver, self.driver.find_element(By.ID, "sign-out"))
            self.driver.remove_virtual_authenticator()
        print("Pro walk: %.1f s" % (time.monotonic() - started), file=sys.stderr)

    def test_3_a_counter_set_back_is_refused_and_audited(self):
        started = time.monotonic()
        credential = self.walk(OWNERS, "cloned", -7)
        count = self.stored(credential)[1]
        self.assertGreater(count, 0, "the virtual authenticator counts its signatures")
        click_through(self.driver, self.driver.find_element(By.ID, "sign-out"))

        # The same key with its counter set back to zero: its next signature counts 1, not more than the stored one.
        current = self.only_credential()
        self.driver.remove_credential(current.id)
        self.driver.add_credential(self.with_count(current, 0))
        self.driver.get(self.public + "/owner/sign-in")
        self.passkey_sign_in()
        self.assertEqual(self.path(), "/owner/sign-in/passkey")
        self.assertIn(REFUSED, self.driver.find_element(By.TAG_NAME, "body").text)
        self.assertNotIn("postern_owner", self.cookies(), "no session")
        self.accessible("the refusal")
        _, stored_count, _, cloned = self.stored(credential)
        self.assertIsNotNone(cloned, "the passkey is marked possibly cloned")
        self.assertEqual(stored_count, count, "the stored counter stays")
        self.assertTrue(self.audited("passkey.possibly_cloned"), "passkey.possibly_cloned is on the trail")

        # Marked, it signs nobody in even with a counter past the stored one; the owner sees why.
        self.driver.remove_credential(current.id)
        self.driver.add_credential(self.with_count(current, count + 10))
        self.driver.get(self.public + "/owner/sign-in")
        self.passkey_sign_in()
        self.assertNotIn("postern_owner", self.cookies(), "a marked passkey signs nobody in")
        self.submit("sign-in-form", {"email": OWNER[0], "password": OWNER[1]})
        row = self.driver.find_element(By.CSS_SELECTOR, "#passkeys tr.passkey:last-child")
        self.assertEqual(row.find_element(By.CLASS_NAME, "passkey-name").text, "owner cloned key")
        self.assertIn("possibly cloned", row.find_element(By.CLASS_NAME, "passkey-kind").text)
        self.driver.remove_virtual_authenticator()
        print("counter walk: %.1f s" % (time.monotonic() - started), file=sys.stderr)


    def test_4_the_passkey_signs_in_on_the_way_through_oauth_authorize(self):
        started = time.monotonic()
        self.walk(OWNERS, "OAuth", -8)
        click_through(self.driver, self.driver.find_element(By.ID, "sign-out"))
        # An app registered as any app registers (RFC 7591), and its authorization request, as the browser opens it.
        callback = "http://127.0.0.1:9/callback"
        request = urllib.request.Request(self.public.replace("localhost", "127.0.0.1") + "/oauth/register",
                                         data=json.dumps({"client_name": "Passkey app", "redirect_uris": [callback],
                                                          "token_endpoint_auth_method": "none"}).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            client_id = json.loads(answer.read())["client_id"]
        verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=")
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": client_id, "redirect_uri": callback, "scope": "mail.read",
            "resource": self.public + "/jmap", "state": "passkey-state", "code_challenge_method": "S256",
            "code_challenge": base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()})
        self.driver.get(self.public + "/oauth/authorize?" + query)
        self.assertTrue(self.path().startswith("/owner/sign-in?next="), "signed out: to the sign-in page")
        self.passkey_sign_in()
        self.assertTrue(self.path().startswith("/oauth/authorize?"), "the passkey sign-in goes on to the app's request")
        consent = self.driver.find_element(By.CSS_SELECTOR, "form[action='/oauth/consent']")
        self.assertIn("Passkey app", self.driver.find_element(By.TAG_NAME, "body").text)
        self.assertTrue(consent.is_displayed(), "the consent page, the owner signed in by the passkey alone")
        print("OAuth walk: %.1f s" % (time.monotonic() - started), file=sys.stderr)


if __name__ == "__main__":
    run_walks("test_passkeys_browser")
