#!/usr/bin/env python3
"""Real-browser test of the owner pages (issue 28): headless Chromium through Selenium, as an owner uses them.

Starts its own `postern serve` (SQLite in a temporary data directory, rate limits off, a small agent proof of work)
so that it can do what the operator does beside the browser: `postern owner create` makes the owner,
`postern agent signup` makes an inbox the way an agent would (to be linked by its key), `postern agent login`
checks which keys work, and Python's sqlite3 writes an OAuth grant as the authorization server would.

    POSTERN_BIN=.build/debug/postern python3 Tests/Browser/test_owner_pages.py

Debian packages `chromium` and `chromium-driver`, and `selenium` from PyPI (scripts/bootstrap --test installs them).
A screenshot of every step goes to $POSTERN_ARTIFACTS (default ./artifacts)/browser/owner-NN-<step>.png.
Exit status 0 when every check passed.
"""

import base64
import hashlib
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import NoRedirect, wait_listening  # noqa: E402
from postern_testkit.browser import click_through, make_driver, waiter  # noqa: E402  (the same headless Chromium)
from postern_testkit.layout import layout_problems  # noqa: E402

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POSTERN = os.environ.get("POSTERN_BIN", os.path.join(REPOSITORY, ".build", "debug", "postern"))
ARTIFACTS = os.path.join(os.environ.get("POSTERN_ARTIFACTS", "artifacts"), "browser")
CONFIG = os.path.join(REPOSITORY, "config", "postern.env")


class Server:
    """`postern serve --port 0` on a fresh data directory; the port from its `listening on` line."""

    def __init__(self):
        self.data = tempfile.mkdtemp(prefix="postern-owner-pages-")
        self.environment = {
            key: value for key, value in os.environ.items()
            if not key.startswith("POSTERN_") or key in ("POSTERN_BIN", "POSTERN_ARTIFACTS")
        }
        self.environment.update({
            "POSTERN_RATE_LIMITS": "off", "POSTERN_AGENT_POW_DIFFICULTY": "2", "POSTERN_AGENT_POW_DYNAMIC": "off",
            "POSTERN_SMTP": "off", "POSTERN_LOG_LEVEL": "notice",
        })
        self.log = open(os.path.join(self.data, "serve.log"), "w+")
        self.process = subprocess.Popen(
            [POSTERN, "serve", "--config", CONFIG, "--data-dir", self.data, "--port", "0"],
            env=self.environment, stdout=self.log, stderr=subprocess.STDOUT)
        self.url = wait_listening(self.process, self.output)
        if self.url is None:
            raise RuntimeError("postern serve did not start:\n" + self.output())

    def output(self):
        """What the server has printed so far."""
        self.log.seek(0)
        return self.log.read()

    def command(self, *arguments):
        """An operator command on the same configuration and data directory; its standard output."""
        result = subprocess.run(
            [POSTERN, *arguments], env=self.environment, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise AssertionError("postern %s failed: %s%s" % (" ".join(arguments), result.stdout, result.stderr))
        return result.stdout

    def operator(self, *arguments):
        return self.command(*arguments, "--config", CONFIG, "--data-dir", self.data)

    def agent_login_works(self, api_key):
        """Whether `postern agent login` gets in with `api_key`."""
        result = subprocess.run(
            [POSTERN, "agent", "login", "--url", self.url, "--api-key", api_key, "--json"],
            env=self.environment, capture_output=True, text=True, timeout=120)
        return result.returncode == 0 and "capability_token" in json.loads(result.stdout or "{}")

    def database(self):
        return sqlite3.connect(os.path.join(self.data, "postern.sqlite3"), timeout=10)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


class OwnerPages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.base = cls.server.url
        cls.email = "owner-%s@example.com" % secrets.token_hex(4)
        cls.password = "correct horse battery"
        cls.server.operator("owner", "create", "--email", cls.email, "--password", cls.password)
        cls.driver = make_driver()
        cls.wait = waiter(cls.driver)
        cls.step = 0
        os.makedirs(ARTIFACTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def screenshot(self, name):
        type(self).step += 1
        path = os.path.join(ARTIFACTS, "owner-%02d-%s.png" % (self.step, name))
        self.assertTrue(self.driver.save_screenshot(path))
        print("screenshot:", os.path.abspath(path), file=sys.stderr)

    def submit(self, form_id, values=None):
        form = self.driver.find_element(By.ID, form_id)
        for name, value in (values or {}).items():
            field = form.find_element(By.NAME, name)
            field.clear()
            field.send_keys(value)
        click_through(self.driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))

    def row(self, address):
        # The string value, not one text node: an address is split by its <wbr> break opportunities.
        return self.driver.find_element(By.XPATH, "//tr[td[@class='address']/span[@class='inbox-address' and normalize-space()='%s']]" % address)

    def cut_off(self):
        """What the page shows past the viewport's width or past an ancestor that clips it (at most ten)."""
        return self.driver.execute_script("""
            const width = document.documentElement.clientWidth, found = [];
            const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
                (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
            if (document.documentElement.scrollWidth > width + 1)
                found.push('the page is ' + document.documentElement.scrollWidth + ' px wide in ' + width);
            for (const e of document.body.querySelectorAll('*')) {
                const r = e.getBoundingClientRect();
                if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
                if (r.left < -1 || r.right > width + 1) {
                    found.push(name(e) + ' spans ' + Math.round(r.left) + '..' + Math.round(r.right));
                    continue;
                }
                for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
                    if (getComputedStyle(a).overflowX === 'visible') continue;
                    const c = a.getBoundingClientRect();
                    if (r.left < c.left - 1 || r.right > c.right + 1) found.push(name(e) + ' cut off by ' + name(a));
                    break;
                }
            }
            return found.slice(0, 10);
        """)

    def shown_key(self):
        return self.wait.until(EC.presence_of_element_located((By.ID, "api-key"))).text.strip()

    def test_owner_pages(self):
        driver, base = self.driver, self.base

        # Signed out, /owner sends the browser to sign in, and back after.
        driver.get(base + "/owner")
        self.wait.until(EC.presence_of_element_located((By.ID, "sign-in-form")))
        self.assertIn("/owner/sign-in?next=%2Fowner", driver.current_url)
        self.screenshot("sign-in")
        self.submit("sign-in-form", {"email": self.email, "password": self.password})
        self.wait.until(EC.presence_of_element_located((By.ID, "inboxes")))
        self.assertEqual(driver.current_url, base + "/owner")
        self.assertEqual(driver.find_element(By.ID, "signed-in-as").text, self.email)
        self.assertTrue(driver.find_elements(By.ID, "no-inboxes") and driver.find_elements(By.ID, "no-apps"))
        self.screenshot("signed-in")

        # Create an inbox on the agent domain: its key is shown once, and works.
        self.submit("create-inbox-form", {"username": "web-made"})
        created_key = self.shown_key()
        self.assertTrue(created_key.startswith("postern_ak_"))
        self.assertIn("web-made@agents.localhost", driver.find_element(By.ID, "api-key-shown").text)
        self.assertNotIn(created_key, driver.current_url)
        self.assertTrue(all(created_key not in c["value"] for c in driver.get_cookies()))
        self.screenshot("inbox-created")
        self.assertTrue(self.server.agent_login_works(created_key))
        self.assertEqual(driver.current_url, base + "/owner", "the post answered 303 back to /owner")
        driver.refresh()  # a GET of /owner: the form is not posted again
        self.assertEqual(driver.find_elements(By.ID, "api-key"), [], "the key is shown once")
        self.assertEqual(driver.find_elements(By.ID, "error"), [], "a refresh does not create the inbox again")
        self.assertEqual(self.row("web-made@agents.localhost").find_element(By.CLASS_NAME, "status").text, "active")

        # A taken name is said plainly, with what was typed kept.
        self.submit("create-inbox-form", {"username": "web-made"})
        error = self.wait.until(EC.presence_of_element_located((By.ID, "error")))
        self.assertIn("taken", error.text)
        self.assertEqual(driver.find_element(By.ID, "username").get_attribute("value"), "web-made")

        # Link an inbox an agent signed up for itself, by presenting its key.
        signup = json.loads(self.server.command(
            "agent", "signup", "--url", base, "--username", "self-made", "--json"))
        self.submit("link-inbox-form", {"api_key": signup["api_key"]})
        notice = self.wait.until(EC.presence_of_element_located((By.ID, "notice")))
        self.assertIn("Linked self-made@agents.localhost", notice.text)
        self.assertEqual(driver.current_url, base + "/owner")
        account_id = self.row("self-made@agents.localhost").get_attribute("data-account-id")
        self.screenshot("inbox-linked")
        driver.refresh()
        self.assertEqual(driver.find_elements(By.ID, "notice"), [], "the notice is shown once")

        # Rotate the linked inbox's key: the new one is shown once and works, the old one stops at once.
        click_through(self.driver, self.row("self-made@agents.localhost").find_element(

            By.CSS_SELECTOR, "form.rotate-key button"))
        new_key = self.shown_key()
        self.assertNotEqual(new_key, signup["api_key"])
        self.assertIn("self-made@agents.localhost", driver.find_element(By.ID, "key-address").text)
        self.screenshot("key-rotated")
        self.assertFalse(self.server.agent_login_works(signup["api_key"]))
        self.assertTrue(self.server.agent_login_works(new_key))

        # A connected app, written as the authorization server writes one, listed and revoked.
        owner_id = next(line.split()[0] for line in self.server.operator("owner", "list").splitlines()
                        if self.email in line)
        grant_id = str(uuid.uuid4())
        now = int(time.time())
        with self.server.database() as db:
            db.execute(
                "INSERT INTO oauth_clients (client_id, kind, auth_method, client_name, redirect_uris, metadata,"
                " created_at) VALUES ('make-connector', 'registered', 'none', 'Make', '[\"https://make.example/cb\"]',"
                " '{}', ?)", (now,))
            db.execute(
                "INSERT INTO oauth_grants (id, owner_id, client_id, agent_id, scope, resource, created_at, expires_at)"
                " VALUES (?, ?, 'make-connector', ?, 'mail.read', ?, ?, ?)",
                (grant_id, owner_id, account_id, base + "/jmap", now, now + 90 * 86400))
        driver.get(base + "/owner")
        app = driver.find_element(By.CSS_SELECTOR, "tr.app[data-grant-id='%s']" % grant_id)
        self.assertEqual(app.find_element(By.CLASS_NAME, "client-name").text, "Make")
        self.assertEqual(app.find_element(By.CLASS_NAME, "scopes").text, "mail.read")
        self.assertEqual(app.find_element(By.CLASS_NAME, "default-inbox").text, "self-made@agents.localhost")
        self.screenshot("app-connected")
        click_through(self.driver, app.find_element(By.CSS_SELECTOR, "form.revoke-app button"))
        notice = self.wait.until(EC.presence_of_element_located((By.ID, "notice")))
        self.assertIn("App disconnected", notice.text)
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, "tr.app"), [])
        with self.server.database() as db:
            (revoked_at,) = db.execute("SELECT revoked_at FROM oauth_grants WHERE id = ?", (grant_id,)).fetchone()
        self.assertIsNotNone(revoked_at)
        self.screenshot("app-revoked")

        # An app asks through OAuth (issue 28): the signed-in owner sees the consent page, narrows it to reading the
        # linked inbox and allows; the browser goes back to the app with a code that buys a read-only token.
        callback = "http://127.0.0.1:9/callback"  # nothing listens: the browser's URL is all the test reads
        client = call_json(base + "/oauth/register", {
            "client_name": "Browser test app", "redirect_uris": [callback],
            "grant_types": ["authorization_code", "refresh_token"]})
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        state = secrets.token_urlsafe(12)
        driver.get(base + "/oauth/authorize?" + urllib.parse.urlencode({
            "response_type": "code", "client_id": client["client_id"], "redirect_uri": callback,
            "scope": "mail.read mail.send", "state": state, "resource": base + "/jmap",
            "code_challenge": challenge, "code_challenge_method": "S256"}))
        form = self.wait.until(EC.presence_of_element_located((By.ID, "consent-form")))
        self.assertEqual(driver.find_element(By.ID, "client-name").text, "Browser test app")
        # The narrowest reach comes first and is the one chosen (issue 83 item 11).
        reaches = form.find_elements(By.CSS_SELECTOR, "input[name=reach]")
        self.assertEqual([(r.get_attribute("value"), r.is_selected()) for r in reaches], [("inbox", True), ("all", False)])
        self.screenshot("consent")
        form.find_element(By.CSS_SELECTOR, "input[name=scope][value='mail.send']").click()
        form.find_element(By.CSS_SELECTOR, "input[name=account_id][value='%s']" % account_id).click()
        form.find_element(By.ID, "approve").click()
        self.wait.until(lambda d: d.current_url.startswith(callback))
        answer = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)
        self.assertEqual((answer["state"], answer["iss"]), ([state], [base]))
        token = call_form(base + "/oauth/token", {
            "grant_type": "authorization_code", "code": answer["code"][0], "redirect_uri": callback,
            "client_id": client["client_id"], "code_verifier": verifier})
        self.assertEqual(token["scope"], "mail.read")
        driver.get(base + "/owner")
        app = driver.find_element(By.XPATH, "//tr[contains(@class, 'app')][td[@class='client-name' and text()='Browser test app']]")
        self.assertEqual(app.find_element(By.CLASS_NAME, "scopes").text, "mail.read")
        self.screenshot("app-authorized")

        # At 1280 px the connected apps' table stays inside its card: Revoke is visible.
        driver.set_window_size(1280, 900)
        driver.get(base + "/owner")
        card = driver.find_element(By.ID, "apps").rect
        revoke = driver.find_element(By.CSS_SELECTOR, "#apps form.revoke-app button").rect
        self.assertLessEqual(revoke["x"] + revoke["width"], card["x"] + card["width"], "Revoke inside the card")
        self.assertTrue(driver.find_element(By.CSS_SELECTOR, "#apps form.revoke-app button").is_displayed())

        # At a laptop's 1280×900 px and a phone's 390×844 px, no page scrolls sideways and nothing is cut off: every element
        # lies inside the viewport and inside the nearest ancestor that clips (a card, a table's wrapper).
        domain = "fit-%s.example" % secrets.token_hex(3)
        driver.get(base + "/owner/domains")
        self.submit("add-domain-form", {"domain": domain})
        self.wait.until(EC.presence_of_element_located((By.ID, "notice")))
        # And the page rules of issue 51 (postern_testkit.layout): the current page's link styled apart, addresses
        # whole words, sizes on one line, wrapped buttons apart, no empty label; /owner links to the web inbox.
        for width, height in ((1280, 900), (390, 844)):
            driver.set_window_size(width, height)
            for page in ("/owner", "/owner/domains"):  # the second with the domain's TXT token, the longest word
                driver.get(base + page)
                self.assertEqual(self.cut_off(), [], "at %d px, %s" % (width, page))
                self.assertEqual(layout_problems(driver), [], "at %d px, %s" % (width, page))
                self.screenshot("%s-at-%d" % (page.strip("/").replace("/", "-"), width))
            driver.get(base + "/owner")
            read_mail = driver.find_element(By.ID, "read-mail")
            self.assertTrue(read_mail.is_displayed(), "at %d px, /owner shows its link to the web inbox" % width)
            self.assertEqual(urllib.parse.urlparse(read_mail.get_attribute("href")).path, "/inbox")
        # The domain page publishes SPF and DMARC beside the TXT token, MX and DKIM.
        driver.get(base + "/owner/domains")
        section = driver.find_element(By.CSS_SELECTOR, "section.domain[data-domain='%s']" % domain)
        self.assertEqual(section.find_element(By.CSS_SELECTOR, "tr.spf .spf-value").text, "v=spf1 mx -all")
        self.assertEqual(section.find_element(By.CSS_SELECTOR, "tr.dmarc .dmarc-name").text, "_dmarc." + domain)
        driver.set_window_size(1280, 900)
        driver.get(base + "/owner")

        # Delete an inbox: a confirmation page first, the address typed; then it and its key are gone.
        click_through(self.driver, self.row("web-made@agents.localhost").find_element(

            By.CSS_SELECTOR, "form.delete-inbox button"))
        self.wait.until(EC.presence_of_element_located((By.ID, "confirm-delete-form")))
        self.assertEqual(driver.find_element(By.ID, "delete-address").text, "web-made@agents.localhost")
        self.screenshot("delete-confirm")
        self.submit("confirm-delete-form", {"confirm": "web-made@agents.localhost"})
        notice = self.wait.until(EC.presence_of_element_located((By.ID, "notice")))
        self.assertIn("Inbox deleted", notice.text)
        self.assertEqual(driver.current_url, base + "/owner")
        self.assertEqual(driver.find_elements(
            By.XPATH, "//tr[td[@class='address']/span[normalize-space()='web-made@agents.localhost']]"), [])
        self.assertFalse(self.server.agent_login_works(created_key))

        # Unlink the linked inbox: it leaves the page, its key still works.
        click_through(self.driver, self.row("self-made@agents.localhost").find_element(

            By.CSS_SELECTOR, "form.unlink-inbox button"))
        notice = self.wait.until(EC.presence_of_element_located((By.ID, "notice")))
        self.assertIn("Inbox unlinked", notice.text)
        self.assertEqual(driver.find_elements(
            By.XPATH, "//tr[td[@class='address']/span[normalize-space()='self-made@agents.localhost']]"), [])
        self.assertTrue(self.server.agent_login_works(new_key))
        self.screenshot("inbox-unlinked")

        # Recent activity: this owner's own events, newest first, in words with what they were done to.
        driver.get(base + "/owner")
        events = driver.find_elements(By.CSS_SELECTOR, "#activity tr.event")
        actions = [(e.get_attribute("data-action"), e.find_element(By.CLASS_NAME, "target").text) for e in events]
        self.assertEqual(actions[0], ("inbox.unlinked", "self-made@agents.localhost"))
        self.assertIn(("inbox.created", "web-made@agents.localhost"), actions)
        self.assertIn(("inbox.deleted", "web-made@agents.localhost"), actions)
        self.assertIn(("app.revoked", grant_id), actions)
        self.assertIn(("owner.signin", self.email), actions)
        self.assertEqual(events[0].find_element(By.CLASS_NAME, "action").text, "Inbox unlinked")
        driver.execute_script("document.getElementById('activity').scrollIntoView()")
        self.screenshot("recent-activity")

        # A post without the CSRF token (from outside the browser, with its session) changes nothing.
        session = next(c["value"] for c in driver.get_cookies() if c["name"] == "postern_owner")
        request = urllib.request.Request(
            base + "/owner/inboxes", data=b"username=forged-one",
            headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": "postern_owner=" + session},
            method="POST")
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        self.assertEqual(refused.exception.code, 403)

        # Sign out: the session ends, and /owner asks to sign in again.
        driver.find_element(By.ID, "sign-out").click()
        self.wait.until(EC.presence_of_element_located((By.ID, "sign-in-form")))
        self.screenshot("signed-out")
        driver.get(base + "/owner")
        self.wait.until(EC.presence_of_element_located((By.ID, "sign-in-form")))
        self.assertIn("/owner/sign-in", driver.current_url)
        request = urllib.request.Request(base + "/owner", headers={"Cookie": "postern_owner=" + session})
        opener = urllib.request.build_opener(NoRedirect)
        with self.assertRaises(urllib.error.HTTPError) as gone:
            opener.open(request, timeout=10)
        self.assertEqual(gone.exception.code, 303, "the old session cookie no longer opens the page")


def call_json(url, body):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def call_form(url, fields):
    request = urllib.request.Request(
        url, data=urllib.parse.urlencode(fields).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


if __name__ == "__main__":
    unittest.main(verbosity=2)
