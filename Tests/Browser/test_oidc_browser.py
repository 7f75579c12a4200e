#!/usr/bin/env python3
"""Signing in with an OpenID Connect provider in a real browser (issue 54, case 8): headless Chromium, JavaScript on,
through Postern's pages, the provider's own page and back.

The provider is oidc-provider-mock 0.3.4 from PyPI (postern_testkit.oidc_mock) on http://127.0.0.1:MOCK; Postern's
public URL is http://localhost:PORT, so the provider and Postern are two sites, as in life: the provider's redirect
back is a cross-site navigation, which the browser's cookie rules (the pre-session cookie, the web inbox's
`SameSite=Strict` session) treat as they would at Google or Keycloak.

- An owner the operator made (so her email is proven; `_TRUST_EMAIL` on, owner sign-up closed) presses "Sign in with
  Mock ID" on /owner/sign-in, types her subject on the provider's page and presses Authorize, and is back on /owner
  signed in, the provider linked under "Sign-in methods"; signed out, she signs in again by choosing her subject from
  the provider's list of previous users.
- A newcomer (`_ALLOW_SIGNUP`, a verified email) presses the button on /inbox/sign-in, authorizes at the provider, and
  lands signed in as a new Pro user without a password, whose Pro dashboard lists the provider under "Sign-in methods";
  the sign-up is on the audit trail.
- A Pro user the operator made (a password, her email not proven) presses the button and authorizes as an identity
  with her email: the provider-link page asks her password; a wrong one is refused there in an error notice, the right
  one links and signs her in; on the dashboard she unlinks the provider (a success notice). An identity whose email
  the provider did not verify gets the refusal page (an error notice, a way back to sign-in).
- axe-core finds no serious or critical violation on both sign-in pages (with their provider buttons) and both
  "Sign-in methods" sections; the provider-link pages (the password question, its refusal, the dashboard linked and
  unlinked, the refusal page) are each looked at 1280×900 and 390×844, with screenshots in $POSTERN_ARTIFACTS (default
  ./artifacts)/browser/oidc-<page>-<width>.png, axe and the layout rules (postern_testkit.layout: every notice its
  kind, Unlink styled as a secondary action, nothing wider than the window).

    POSTERN_BIN=.build/debug/postern python3 Tests/Browser/test_oidc_browser.py

One browser and one server for the whole walk; prints the Chromium version. Exit status 0 when every check passed.
"""

import contextlib
import json
import os
import sqlite3
import sys
import time
import unittest

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import postern  # noqa: E402
from postern_testkit.accessibility import assert_accessible  # noqa: E402
from postern_testkit.browser import click_through, fill_form, make_driver, run_walks, waiter  # noqa: E402
from postern_testkit.layout import at_both_sizes  # noqa: E402
from postern_testkit.oidc_mock import mock_provider, provider_env, set_user  # noqa: E402
from postern_testkit.ports import free_port  # noqa: E402
from test_passkeys_browser import WITHOUT_WEBAUTHN_TOKEN  # noqa: E402

OWNER = ("ada@example.com", "correct horse battery")
OWNER_SUB = "ada-at-provider"
NEWCOMER = ("newpro@example.com", "newpro-at-provider")
LINKER = ("linker@example.com", "linker password 1")  # a Pro user the operator makes: a password, her email not proven
LINKER_SUB = "linker-at-provider"
UNVERIFIED_SUB = "unverified-at-provider"
ARTIFACTS = os.path.join(os.environ.get("POSTERN_ARTIFACTS", "artifacts"), "browser")


class ProviderSignInInChromium(unittest.TestCase):
    """One provider, one server, one browser; the tests run in name order."""

    @classmethod
    def setUpClass(cls):
        started = time.monotonic()
        cls.stack = contextlib.ExitStack()
        cls.provider = cls.stack.enter_context(mock_provider())
        set_user(cls.provider, OWNER_SUB, {"email": OWNER[0], "email_verified": True, "name": "Ada"})
        set_user(cls.provider, NEWCOMER[1], {"email": NEWCOMER[0], "email_verified": True, "name": "New Pro"})
        set_user(cls.provider, LINKER_SUB, {"email": LINKER[0], "email_verified": True, "name": "Lin"})
        set_user(cls.provider, UNVERIFIED_SUB, {"email": "unproven@example.com", "email_verified": False})
        port = free_port()
        cls.public = "http://localhost:%d" % port
        env = provider_env(cls.provider, signup=True, surfaces="owners,pro") | {
            "POSTERN_PORT": str(port), "POSTERN_PUBLIC_URL": cls.public, "POSTERN_SMTP": "off",
            "POSTERN_OWNER_SIGNUP": "closed", "POSTERN_OIDC_MOCK_TRUST_EMAIL": "true"}
        cls.server = cls.stack.enter_context(postern(env, owners=[OWNER], pro_users=[LINKER]))
        cls.driver = make_driver()
        cls.stack.callback(cls.driver.quit)
        cls.wait = waiter(cls.driver)
        print("Chromium %s (chromedriver %s)" % (
            cls.driver.capabilities.get("browserVersion"),
            cls.driver.capabilities.get("chrome", {}).get("chromedriverVersion", "?").split(" ")[0]), file=sys.stderr)
        print("setup: %.1f s" % (time.monotonic() - started), file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.stack.close()

    def tearDown(self):
        self.driver.delete_all_cookies()

    # --- what the test does beside the browser

    def audited(self, action):
        """The details (parsed) of every audit event `action`, oldest first."""
        with sqlite3.connect(os.path.join(self.server.data, "postern.sqlite3"), timeout=10) as database:
            rows = database.execute("SELECT details FROM audit_events WHERE action = ? ORDER BY id", (action,))
            return [json.loads(details or "{}") for (details,) in rows]

    # --- the browser

    def accessible(self, name):
        """axe on the current page. The email field of a sign-in page says `autocomplete="username webauthn"`, which
        the axe-core that axe-selenium-python ships predates (see test_passkeys_browser's `accessible`): its value is
        pinned to exactly that and axe checks the page without the attribute."""
        tokens = self.driver.execute_script(WITHOUT_WEBAUTHN_TOKEN)
        self.assertTrue(all(value == "username webauthn" for value in tokens), tokens)
        assert_accessible(self.driver, name)

    def look(self, name):
        """The page as it is now at a laptop's and a phone's size: screenshots, axe and the layout rules (the email
        fields' `webauthn` token set aside as in ``accessible``)."""
        self.driver.execute_script(WITHOUT_WEBAUTHN_TOKEN)
        self.assertEqual(at_both_sizes(self.driver, ARTIFACTS, "oidc-" + name), [], name)

    def notice(self, kind):
        """The page's one notice, which must be of `kind`; its text."""
        notes = self.driver.find_elements(By.CSS_SELECTOR, ".flash")
        self.assertEqual([n.get_attribute("data-notice") for n in notes], [kind], self.driver.current_url)
        return notes[0].text

    def cookies(self):
        return {c["name"] for c in self.driver.get_cookies()}

    def path(self):
        return "/" + self.driver.current_url.split("/", 3)[3]

    def element(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def press_provider_button(self, sign_in_page=None, shown=None):
        """Presses "Sign in with Mock ID" and returns once the provider's authorization page is there; first, with
        `sign_in_page`, opens that page, sees its element `shown` and runs axe on it."""
        if sign_in_page:
            self.driver.get(self.public + sign_in_page)
            self.assertTrue(self.element(shown).is_displayed(), "%s shows #%s" % (sign_in_page, shown))
            self.accessible("%s with the provider button" % sign_in_page)
        button = self.element("provider-mock")
        self.assertEqual(button.text, "Sign in with Mock ID")
        click_through(self.driver, button)
        # The button's answer is a page that moves on to the provider by itself (see BrowserPage.moveOn).
        self.wait.until(lambda d: d.current_url.startswith(self.provider + "/oauth2/authorize?"),
                        "the button goes on to the provider's page")
        self.assertIn("Authorize Client", self.driver.find_element(By.TAG_NAME, "h1").text)

    def authorize_as(self, sub):
        """On the provider's page: types `sub` and presses Authorize."""
        field = self.driver.find_element(By.CSS_SELECTOR, "input[name=sub]")
        field.send_keys(sub)
        form = field.find_element(By.XPATH, "./ancestor::form")
        click_through(self.driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))

    def choose_previous(self, sub):
        """On the provider's page: presses `sub` among its previous users."""
        click_through(self.driver, self.driver.find_element(
            By.CSS_SELECTOR, "form[aria-labelledby=heading-auth-previous] button[value='%s']" % sub))

    def back_signed_in(self, path, cookie):
        """Waits until the browser is back at Postern on `path` with the session `cookie`."""
        self.wait.until(lambda d: d.current_url.startswith(self.public) and self.path() == path
                        and cookie in self.cookies(), "back at Postern on %s, signed in" % path)

    # --- the walks

    def test_1_owner_signs_in_with_the_provider(self):
        started = time.monotonic()
        self.press_provider_button("/owner/sign-in", "sign-in-providers")
        self.assertNotIn("postern_owner", self.cookies(), "no session before the provider answers")
        self.authorize_as(OWNER_SUB)
        self.back_signed_in("/owner", "postern_owner")
        self.assertEqual(self.element("signed-in-as").text, OWNER[0])
        methods = self.element("sign-in-methods")
        self.assertIn("Mock ID", self.element("identity-mock").text, "the provider is linked under Sign-in methods")
        self.assertTrue(methods.find_element(By.ID, "unlink-mock").is_displayed(), "with its Unlink button")
        self.driver.execute_script("arguments[0].scrollIntoView()", methods)
        self.accessible("/owner's Sign-in methods")

        # Signed out, back in by choosing her subject from the provider's list: the link signs her in.
        click_through(self.driver, self.element("sign-out"))
        self.assertNotIn("postern_owner", self.cookies(), "signed out")
        self.driver.get(self.public + "/owner/sign-in")
        self.press_provider_button()
        self.choose_previous(OWNER_SUB)
        self.back_signed_in("/owner", "postern_owner")
        self.assertEqual(self.element("signed-in-as").text, OWNER[0])
        self.assertEqual([d.get("provider") for d in self.audited("owner.signin")], ["mock", "mock"],
                         "both sign-ins are on the audit trail, through the provider")
        print("owner walk: %.1f s" % (time.monotonic() - started), file=sys.stderr)

    def test_2_pro_user_signs_up_with_the_provider(self):
        started = time.monotonic()
        self.press_provider_button("/inbox/sign-in", "provider-form")
        self.authorize_as(NEWCOMER[1])
        # The callback's page moves on to /inbox by itself (a Strict cookie is not sent on the provider's redirect).
        self.back_signed_in("/inbox", "postern_inbox")
        self.driver.get(self.public + "/inbox/dashboard")
        self.assertEqual(self.path(), "/inbox/dashboard", "the Pro dashboard, signed in")
        self.assertEqual(self.element("signed-in-as").text, NEWCOMER[0])
        methods = self.element("sign-in-methods")
        self.assertTrue(self.element("password-state").text.startswith("Password: none"),
                        "a Pro user made by the provider has no password")
        self.assertIn("Mock ID", self.element("identity-mock").text, "the provider is linked under Sign-in methods")
        self.driver.execute_script("arguments[0].scrollIntoView()", methods)
        self.accessible("the Pro dashboard's Sign-in methods")
        self.assertTrue(self.audited("signin.signed_up"), "the provider sign-up is on the audit trail")
        print("Pro walk: %.1f s" % (time.monotonic() - started), file=sys.stderr)

    def test_3_pro_user_links_the_provider_with_her_password(self):
        started = time.monotonic()
        self.press_provider_button("/inbox/sign-in", "provider-form")
        self.authorize_as(LINKER_SUB)
        self.wait.until(lambda d: d.current_url.startswith(self.public) and self.path() == "/inbox/sign-in/provider-link",
                        "the provider-link page asks the account's password")
        self.assertEqual(self.element("link-email").text, LINKER[0])
        self.assertNotIn("postern_inbox", self.cookies(), "no session before the password")
        self.look("link-question")

        fill_form(self.driver, "link-form", {"password": "not her password"})
        click_through(self.driver, self.element("submit"))
        self.wait.until(lambda d: d.find_elements(By.ID, "error"), "the wrong password is refused on the page")
        self.notice("error")
        self.look("link-wrong-password")

        fill_form(self.driver, "link-form", {"password": LINKER[1]})
        click_through(self.driver, self.element("submit"))
        self.back_signed_in("/inbox", "postern_inbox")
        self.driver.get(self.public + "/inbox/dashboard")
        self.assertEqual(self.element("signed-in-as").text, LINKER[0])
        self.assertIn("Mock ID", self.element("identity-mock").text, "linked by her password")
        self.look("dashboard-linked")

        click_through(self.driver, self.element("unlink-mock"))
        self.wait.until(lambda d: d.find_elements(By.ID, "notice"), "the dashboard says the provider is unlinked")
        self.notice("success")
        self.assertEqual(self.driver.find_elements(By.ID, "identity-mock"), [], "unlinked")
        self.look("dashboard-unlinked")
        self.assertEqual([d.get("reason") for d in self.audited("signin.link_refused")], ["wrong_password"])
        print("provider-link walk: %.1f s" % (time.monotonic() - started), file=sys.stderr)

    def test_4_an_unverified_email_gets_the_refusal_page(self):
        self.press_provider_button("/inbox/sign-in", "provider-form")
        self.authorize_as(UNVERIFIED_SUB)
        self.wait.until(lambda d: d.current_url.startswith(self.public) and d.find_elements(By.ID, "back-to-sign-in"),
                        "the refusal page, with its way back")
        self.notice("error")
        self.assertNotIn("postern_inbox", self.cookies())
        self.look("refused")


if __name__ == "__main__":
    run_walks("test_oidc_browser")
