#!/usr/bin/env python3
"""Real-browser test of the remote-hash pages (CONTRACT 3.1): headless Chromium through Selenium.

Needs a running Postern that may fetch hash URLs on loopback, because the hash URL used here is the
server's own /example.txt (a fresh Argon2id hash of `test123` on every fetch):

    POSTERN_REMOTE_HASH_ALLOW_PRIVATE=true POSTERN_RATE_LIMITS=off postern serve --port 0
    python3 Tests/Browser/test_pages.py http://127.0.0.1:<port>   # or POSTERN_BASE_URL=...

Debian packages `chromium` and `chromium-driver`, and `selenium` from PyPI. The screenshot of the
logged-in page goes to $POSTERN_ARTIFACTS (default ./artifacts)/browser/logged-in.png; every page the walk sees (the
landing page, the demo, the registration's notice, the token, the CSRF refusal) is looked at 1280×900 and 390×844
(hash-<page>-<width>.png beside it): axe finds no serious or critical violation and the layout rules hold
(postern_testkit.layout: every notice its kind, every negative button its style, nothing wider than the window).
Exit status 0 when every check passed.
"""

import base64
import json
import os
import secrets
import sys
import unittest
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit.browser import make_driver, waiter  # noqa: E402  (the same headless Chromium for every browser test)
from postern_testkit.layout import at_both_sizes  # noqa: E402

BASE_URL = os.environ.get("POSTERN_BASE_URL", "http://127.0.0.1:8080").rstrip("/")
ARTIFACTS = os.path.join(os.environ.get("POSTERN_ARTIFACTS", "artifacts"), "browser")


def b64url_json(segment):
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


class RemoteHashPages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.driver = make_driver()
        cls.wait = waiter(cls.driver)
        cls.email = "browser-%s@example.com" % secrets.token_hex(6)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def fill(self, form_id, values):
        form = self.driver.find_element(By.ID, form_id)
        for name, value in values.items():
            field = form.find_element(By.NAME, name)
            field.clear()
            field.send_keys(value)
        return form

    def look(self, name):
        """The page as it is now, at a laptop's and a phone's size: screenshots, axe and the layout rules."""
        self.assertEqual(at_both_sizes(self.driver, ARTIFACTS, "hash-" + name), [], name)

    def test_0_landing_page_links_to_what_the_server_serves(self):
        self.driver.get(BASE_URL + "/")
        self.assertEqual(self.driver.title, "Postern")
        self.look("landing")
        links = {a.get_attribute("id"): a.get_attribute("href") for a in
                 self.driver.find_elements(By.CSS_SELECTOR, "#links a")}
        self.assertEqual(links, {
            "link-llms": BASE_URL + "/llms.txt", "link-inbox": BASE_URL + "/inbox", "link-owner": BASE_URL + "/owner",
            "link-openapi": BASE_URL + "/openapi.json", "link-demo": BASE_URL + "/login_test"})
        # The command names the server's public URL (the one it was configured with, else where it listens).
        self.assertRegex(self.driver.find_element(By.ID, "start").text,
                         r"postern agent signup --url https?://\S+ --username NAME")
        # CONTRACT 3.1: / is still the demo page, under the landing sections: the key and both forms follow.
        for element in ("demo", "register-form", "login-form", "public-key-pem", "api"):
            self.assertTrue(self.driver.find_element(By.ID, element).is_displayed(), element)
        self.driver.find_element(By.ID, "link-demo").click()
        self.wait.until(EC.presence_of_element_located((By.ID, "register-form")))
        self.assertIn("Remote Argon2 login", self.driver.title)

    def test_1_page_shows_key_forms_and_docs(self):
        self.driver.get(BASE_URL + "/login_test")
        self.assertIn("Remote Argon2 login", self.driver.title)
        pem = self.driver.find_element(By.ID, "public-key-pem").text
        self.assertIn("-----BEGIN PUBLIC KEY-----", pem)
        self.assertTrue(self.driver.find_element(By.ID, "register-form").is_displayed())
        self.assertTrue(self.driver.find_element(By.ID, "login-form").is_displayed())
        self.assertIn("POST /register", self.driver.find_element(By.ID, "api").text)
        hidden = self.driver.find_element(By.CSS_SELECTOR, "#register-form input[name=csrf_token]")
        self.assertEqual(len(hidden.get_attribute("value")), 43)
        self.look("demo")

    def test_2_register_through_the_form(self):
        self.driver.get(BASE_URL + "/login_test")
        form = self.fill("register-form", {
            "email": self.email,
            "password_hash_url": BASE_URL + "/example.txt",
            "password": "test123",
        })
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        notice = self.wait.until(EC.presence_of_element_located((By.ID, "notice")))
        self.assertEqual(notice.text, "Registration succeeded.")
        self.assertEqual(notice.get_attribute("data-notice"), "success")
        self.look("registered")
        self.assertEqual(self.driver.current_url, BASE_URL + "/")  # CONTRACT 3.1: 303 to /
        self.driver.refresh()
        self.assertEqual(self.driver.find_elements(By.ID, "notice"), [], "the flash message is shown once")

    def test_3_login_through_the_form_shows_token_and_claims(self):
        self.driver.get(BASE_URL + "/login_test")
        form = self.fill("login-form", {"email": self.email, "password": "test123"})
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.wait.until(EC.presence_of_element_located((By.ID, "login-result")))
        token = self.driver.find_element(By.ID, "token").get_attribute("value").strip()
        header_text = self.driver.find_element(By.ID, "token-header").text
        claims_text = self.driver.find_element(By.ID, "token-claims").text
        segments = token.split(".")
        self.assertEqual(len(segments), 3)
        header, claims = b64url_json(segments[0]), b64url_json(segments[1])
        self.assertEqual(header["alg"], "RS256")
        self.assertEqual(json.loads(header_text), header)
        self.assertEqual(json.loads(claims_text), claims)
        self.assertEqual(claims["sub"], self.email)
        self.assertEqual(claims["email"], self.email)
        self.assertEqual(claims["exp"] - claims["iat"], 3600)
        self.assertEqual(claims["pur"], "remote-login")
        os.makedirs(ARTIFACTS, exist_ok=True)
        path = os.path.join(ARTIFACTS, "logged-in.png")
        self.assertTrue(self.driver.save_screenshot(path))
        print("screenshot:", os.path.abspath(path), file=sys.stderr)
        self.look("logged-in")
        request = urllib.request.Request(
            BASE_URL + "/validate", data=json.dumps({"token": token}).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            body = json.load(response)
        self.assertTrue(body["valid"])
        self.assertEqual(body["payload"]["email"], self.email)

    def test_4_form_post_without_csrf_token_is_refused(self):
        self.driver.get(BASE_URL + "/login_test")
        self.driver.execute_script(
            "document.querySelector('#login-form input[name=csrf_token]').remove();")
        form = self.fill("login-form", {"email": self.email, "password": "test123"})
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        # The refusal sits next to the form it refused, which keeps the email typed.
        error = self.wait.until(EC.presence_of_element_located((By.ID, "login-error")))
        self.assertIn("did not come from this page", error.text)
        self.assertIn("error", error.get_attribute("class").split())
        self.look("csrf-refused")
        self.assertEqual(self.driver.find_element(By.ID, "login-email").get_attribute("value"), self.email)
        self.assertEqual(self.driver.find_elements(By.ID, "login-result"), [])
        # The same post from outside the browser, without the cookie or the field: 403.
        request = urllib.request.Request(
            BASE_URL + "/login", data=("email=%s&password=test123" % self.email).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"}, method="POST")
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        self.assertEqual(refused.exception.code, 403)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1].startswith("http"):
        BASE_URL = sys.argv.pop(1).rstrip("/")
    unittest.main(verbosity=2)
