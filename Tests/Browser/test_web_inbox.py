#!/usr/bin/env python3
"""The web inbox and the Pro dashboard in headless Chromium (Selenium), as each kind of person uses them.

Starts its own `postern serve --profile test` (postern_testkit's `postern`: free ports, a temporary data directory,
SMTP and the sandbox on), with two owners and two Pro users made by the operator's commands. For a Mail.td account
(made the v1 way and the v2 way), a Pro user, an owner and a `postern web link` one-time link, each: sign in, see a
message that arrives over Postern's SMTP listener appear without a reload (within 2 s of the 250), open it, download
its attachment, view its source, mark it unread, delete it. A Pro user creates an API token (shown once, and it works)
and adds a domain (its DNS records shown, the TXT token the API's); an owner replies as their agent (the reply arrives
in the other agent's inbox, and is in Sent). A hostile HTML message executes nothing and fetches nothing (a loopback
hit counter serves its remote URLs and counts zero; the canary `window.top.__pwned` stays unset). Another person's
message, another owner's inbox and another Pro user's account answer 404. axe-core finds no serious or critical
violation on any view, and every action of every view is reached by Tab. A screenshot of every view, at 1280 px and at
390 px, goes to $POSTERN_ARTIFACTS (default ./artifacts)/browser/inbox-<person>-<view>[-390].png.

    POSTERN_BIN=.build/debug/postern python3 Tests/Browser/test_web_inbox.py

The harness under it is proved on its own by test_browser_kit.py. Exit status 0 when every check passed.

What the pages must offer (the contract this test holds them to): the routes in ROUTES and the elements in SELECTORS
below. Fields are found by their `name` inside the form named; every field also needs a <label> (axe checks it).
"""

import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

from selenium.common.exceptions import NoSuchElementException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, http, postern  # noqa: E402
from postern_testkit.accessibility import assert_accessible, unreachable_by_keyboard  # noqa: E402
from postern_testkit.browser import (  # noqa: E402
    PHONE_HEIGHT, PHONE_WIDTH, clear_cookies, click_through, download, hold_until, make_driver, scripts_off, set_viewport, status_of,
    waiter)
from postern_testkit.hostile import HitCounter, arm_canary, canary, hostile_message  # noqa: E402
from postern_testkit.jmap_agent import JMAPAgent  # noqa: E402
from postern_testkit.layout import layout_problems  # noqa: E402
from postern_testkit.mail_fixtures import deliver_smtp, message  # noqa: E402
from postern_testkit.mailtd import auth_key, create_account, domains, pro_login  # noqa: E402

ARTIFACTS = os.path.join(os.environ.get("POSTERN_ARTIFACTS", "artifacts"), "browser")
BINARY = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
WIDTH = 1280
LIVE_SECONDS = 2  # a message over SMTP shows in an open list within this long of the 250, without a reload

# The routes the test opens by URL; everything else it reaches by following the pages' own links and forms.
ROUTES = {
    "sign_in": "/inbox/sign-in",        # Mail.td account and Pro user sign-in
    "inbox": "/inbox",                  # the signed-in person's mailboxes; a 303 to the list of an only one
    "owner_sign_in": "/owner/sign-in",  # owners sign in where they already do (form #sign-in-form), then /inbox
}

# | key              | locator                        | what it is                                                     |
# |------------------|--------------------------------|----------------------------------------------------------------|
# | account_sign_in  | form#account-sign-in-form      | Mail.td account: fields `address`, `password`                  |
# | pro_sign_in      | form#pro-sign-in-form          | Pro user: fields `email`, `password`                           |
# | pro_token_sign_in| form#pro-sign-in-form          | Pro user by a pasted `tm_pro_` token: field `token` (the Pro   |
# |                  |                                | form; email and password left empty)                           |
# | signed_in_as     | #signed-in-as                  | text: the address (account, link) or email (Pro user, owner)   |
# | sign_out         | #sign-out                      | a button (in a POST form) that ends the session                |
# | mailboxes        | #mailboxes (a list, at /inbox) | one link per mailbox the person may see, its text the address  |
# |                  |                                | (the Pro sandbox's: "Sandbox"); the current one has            |
# |                  |                                | aria-current=page                                              |
# | messages         | #messages                      | the list; each message an element of class `message` with      |
# |                  |                                | id message-<id>, class `unread` while unread, and inside it    |
# |                  |                                | .from .subject (a link to the message) .preview .time .size,   |
# |                  |                                | and .attachment-mark when it has attachments                   |
# | no_messages      | #empty                         | shown instead of rows when the list is empty                   |
# | search           | form#search-form (GET)         | fields `text`, `from`, `subject` (and hidden `folder`)         |
# | live             | nav#live                       | the list's paging and live state (aria-live); its reload link  |
# |                  |                                | (a#reload) works with JavaScript off                           |
# | message          | article#message                | the message view                                               |
# | message_subject  | #header-subject                | its subject (text)                                             |
# | message_headers  | dl#headers                     | From, To, Subject, Received (text)                             |
# | message_text     | pre#text-body                  | the text part (text)                                           |
# | message_html     | iframe#html-body               | the HTML part: sandbox without allow-scripts, own CSP          |
# | remote_blocked   | #remote-blocked                | says remote content was blocked (when the HTML has any)        |
# | attachments      | #attachments                   | a link per attachment (a.attachment-link), text the file name  |
# | view_source      | a#raw-source                   | to the raw source                                              |
# | source           | pre#source                     | the raw RFC 5322 source (or a text/plain page holding it)      |
# | mark_unread      | form#mark-form                 | POST: marks an opened (read) message unread (button            |
# |                  |                                | #mark-unread; #mark-read while unread)                         |
# | delete           | form#delete-form               | POST: deletes the message, then back to the list               |
# | reply            | a#reply                        | owners: to the compose form, filled for a reply                |
# | compose          | form#compose-form              | owners: fields `to`, `subject`, `body`                         |
# | sent             | a#folder-sent                  | owners: the current inbox's Sent mailbox                       |
# | auth_results     | #auth-results                  | sandbox captures: SPF, DKIM and DMARC verdicts                 |
# | dashboard        | a#dashboard                    | Pro users: to the Pro dashboard                                |
# | accounts         | #accounts                      | the dashboard's accounts: one .account each, with .address     |
# | create_token     | form#create-token-form         | field `name`                                                   |
# | token_shown      | #token-shown                   | the new token (text), shown once                               |
# | tokens           | #tokens                        | one .token per token, with .name                               |
# | add_domain       | form#add-domain-form           | field `domain`                                                 |
# | domain_records   | #domain-records                | one .record per DNS record: .type .host .value .state          |
# | notice, error    | #notice, #error                | the flash message after a post                                 |
# | open_link        | form#link-form                 | a one-time link's page: its button uses the link (a GET never) |
SELECTORS = {
    "account_sign_in": (By.ID, "account-sign-in-form"),
    "pro_sign_in": (By.ID, "pro-sign-in-form"),
    "pro_token_sign_in": (By.ID, "pro-sign-in-form"),
    "owner_sign_in": (By.ID, "sign-in-form"),
    "signed_in_as": (By.ID, "signed-in-as"),
    "sign_out": (By.ID, "sign-out"),
    "mailboxes": (By.ID, "mailboxes"),
    "messages": (By.ID, "messages"),
    "no_messages": (By.ID, "empty"),
    "search": (By.ID, "search-form"),
    "live": (By.ID, "live"),
    "message": (By.ID, "message"),
    "message_subject": (By.ID, "header-subject"),
    "message_headers": (By.ID, "headers"),
    "message_text": (By.ID, "text-body"),
    "message_html": (By.ID, "html-body"),
    "remote_blocked": (By.ID, "remote-blocked"),
    "attachments": (By.ID, "attachments"),
    "view_source": (By.ID, "raw-source"),
    "source": (By.ID, "source"),
    "mark_unread": (By.ID, "mark-form"),
    "delete": (By.ID, "delete-form"),
    "reply": (By.ID, "reply"),
    "compose": (By.ID, "compose-form"),
    "sent": (By.ID, "folder-sent"),
    "auth_results": (By.ID, "auth-results"),
    "dashboard": (By.ID, "dashboard"),
    "accounts": (By.ID, "accounts"),
    "create_token": (By.ID, "create-token-form"),
    "token_shown": (By.ID, "token-shown"),
    "tokens": (By.ID, "tokens"),
    "add_domain": (By.ID, "add-domain-form"),
    "domain_records": (By.ID, "domain-records"),
    "notice": (By.ID, "notice"),
    "error": (By.ID, "error"),
    "open_link": (By.ID, "link-form"),
}
ROW = "//*[@id='messages']//*[contains(concat(' ', normalize-space(@class), ' '), ' message ')]"


def xpath_literal(text):
    """`text` as an XPath string literal, whichever quotes it holds."""
    if "'" not in text:
        return "'%s'" % text
    if '"' not in text:
        return '"%s"' % text
    return "concat(%s)" % ", \"'\", ".join("'%s'" % part for part in text.split("'"))


def row_with(subject):
    """XPath of the list row whose .subject reads `subject`."""
    return ROW + "[.//*[contains(concat(' ', normalize-space(@class), ' '), ' subject ')][normalize-space()=%s]]" % (
        xpath_literal(subject))


class WebInbox(unittest.TestCase):
    """One server, one browser; the tests run in name order and the isolation test last uses what the others saw."""

    @classmethod
    def setUpClass(cls):
        cls.stack = []
        cls.owners = [("owner-a-%s@example.com" % secrets.token_hex(3), "owner-a password"),
                      ("owner-b-%s@example.com" % secrets.token_hex(3), "owner-b password")]
        cls.pros = [("pro-a-%s@example.com" % secrets.token_hex(3), "pro-a password"),
                    ("pro-b-%s@example.com" % secrets.token_hex(3), "pro-b password")]
        context = postern({"POSTERN_MAILBOX_POW_REQUIRED": "off", "POSTERN_SANDBOX_SMTP_PORT": "0",
                           "POSTERN_SANDBOX_MAIL_AUTH": "off"}, pro_users=cls.pros, owners=cls.owners)
        cls.base = context.__enter__()
        cls.stack.append(context)
        cls.domain = domains(cls.base)[0]
        cls.remote = HitCounter()
        cls.downloads = tempfile.mkdtemp(prefix="postern-inbox-downloads-")
        cls.driver = make_driver(WIDTH, 1400, downloads=cls.downloads)
        arm_canary(cls.driver)
        cls.wait = waiter(cls.driver)
        cls.seen = {}  # person -> {"message": url, "source": url, "attachment": url, "mailbox": url}
        os.makedirs(ARTIFACTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.remote.close()
        shutil.rmtree(cls.downloads, ignore_errors=True)
        for context in reversed(cls.stack):
            context.__exit__(None, None, None)

    # -- the pages' elements ------------------------------------------------------------------------------------

    def find(self, key):
        return self.driver.find_element(*SELECTORS[key])

    def present(self, key):
        """The element `key` of SELECTORS, once the page has it (20 s at most; the failure names what and where)."""
        return self.wait.until(EC.presence_of_element_located(SELECTORS[key]),
                               "no %s (%s=%s) on %s" % ((key,) + SELECTORS[key] + (self.driver.current_url,)))

    def absent(self, key):
        return self.driver.find_elements(*SELECTORS[key]) == []

    def submit(self, key, values=None):
        form = self.present(key)
        for name, value in (values or {}).items():
            field = form.find_element(By.NAME, name)
            field.clear()
            field.send_keys(value)
        click_through(self.driver, form.find_element(By.CSS_SELECTOR, "button[type=submit], input[type=submit]"))

    def open_row(self, subject):
        """Opens the message whose list row reads `subject`."""
        self.driver.find_element(By.XPATH, row_with(subject)).find_element(By.CSS_SELECTOR, ".subject a").click()
        self.present("message")

    def open_link(self, container_key, text):
        """Follows the link reading `text` inside the element `container_key`."""
        self.present(container_key).find_element(By.XPATH, ".//a[normalize-space()=%s]" % xpath_literal(text)).click()

    # -- what every view gets -----------------------------------------------------------------------------------

    def view(self, person, name):
        """Screenshots of the current view at 1280 and 390×844 px (nothing wider than the phone's viewport), axe's
        serious and critical violations, and the actions Tab does not reach: all must be none."""
        path = os.path.join(ARTIFACTS, "inbox-%s-%s.png" % (person, name))
        self.assertTrue(self.driver.save_screenshot(path))
        print("screenshot:", os.path.abspath(path), file=sys.stderr)
        assert_accessible(self.driver, "%s's %s" % (person, name))
        self.assertEqual(unreachable_by_keyboard(self.driver), [], "keyboard on %s's %s" % (person, name))
        self.assertEqual(layout_problems(self.driver), [], "%s's %s at %d px" % (person, name, WIDTH))
        set_viewport(self.driver, PHONE_WIDTH, PHONE_HEIGHT)
        try:
            width = self.driver.execute_script("return document.documentElement.scrollWidth")
            self.assertLessEqual(width, PHONE_WIDTH + 1, "%s's %s scrolls sideways at %d px" % (person, name, PHONE_WIDTH))
            self.assertEqual(layout_problems(self.driver), [], "%s's %s at %d px" % (person, name, PHONE_WIDTH))
            path = os.path.join(ARTIFACTS, "inbox-%s-%s-390.png" % (person, name))
            self.assertTrue(self.driver.save_screenshot(path))
        finally:
            set_viewport(self.driver, WIDTH, 1400)

    # -- the flow every person goes through ---------------------------------------------------------------------

    def arrives_live(self, address, subject, sender="friend@example.net", attachment=None, text=None):
        """Sends a message over SMTP to `address` while its list is open; it must show within LIVE_SECONDS of the 250,
        the page not reloaded. Returns the message's Message-ID."""
        self.present("messages")
        self.driver.execute_script("window.__sameDocument = true;")
        raw, message_id = message(sender, address, subject, text=text or "Body of %s." % subject,
                                  attachments=[attachment] if attachment else ())
        self.assertEqual(deliver_smtp("127.0.0.1", self.base.smtp_port, sender, [address], raw), {})
        waiter(self.driver, LIVE_SECONDS).until(
            EC.presence_of_element_located((By.XPATH, row_with(subject))),
            "%s did not show within %d s of its 250" % (subject, LIVE_SECONDS))
        self.assertTrue(self.driver.execute_script("return window.__sameDocument === true"), "the page reloaded")
        return message_id

    def message_flow(self, person, address):
        """With the list of `address` open: a message arrives live, is shown unread with its attachment mark, opened
        (headers, text), its attachment downloaded, its source viewed, marked unread, and deleted (then 404)."""
        subject = "For %s %s" % (person, secrets.token_hex(3))
        name, data = "notes-%s.txt" % person, ("notes for %s\n" % person).encode()
        message_id = self.arrives_live(address, subject, attachment=(name, "text/plain", data))
        list_url = self.driver.current_url
        row = self.driver.find_element(By.XPATH, row_with(subject))
        self.assertIn("unread", row.get_attribute("class").split())
        weight = row.find_element(By.CLASS_NAME, "subject").value_of_css_property("font-weight")
        self.assertGreaterEqual(int(weight), 600, "unread in bold")
        self.assertIn("friend@example.net", row.find_element(By.CLASS_NAME, "from").get_attribute("textContent"))
        self.assertIn("Body of", row.find_element(By.CLASS_NAME, "preview").text)
        self.assertTrue(row.find_elements(By.CLASS_NAME, "attachment-mark"), "attachment mark")
        self.view(person, "list")

        row.find_element(By.CSS_SELECTOR, ".subject a").click()
        self.present("message")
        message_url = self.driver.current_url
        self.assertEqual(self.find("message_subject").text, subject)
        self.assertIn("friend@example.net", self.find("message_headers").text)
        self.assertIn("Body of %s." % subject, self.find("message_text").text)
        self.view(person, "message")

        link = self.present("attachments").find_element(By.XPATH, ".//a[normalize-space()=%s]" % xpath_literal(name))
        attachment_url = link.get_attribute("href")
        self.assertEqual(download(self.driver, link, self.downloads), (name, data))

        self.find("view_source").click()
        self.wait.until(lambda d: message_id in d.find_element(By.TAG_NAME, "body").text)
        source_url = self.driver.current_url
        if self.driver.find_elements(*SELECTORS["source"]):
            self.view(person, "source")

        # Opened, it is read; marked unread, it is bold again.
        self.driver.get(list_url)
        self.assertNotIn("unread", self.driver.find_element(By.XPATH, row_with(subject)).get_attribute("class").split())
        self.driver.get(message_url)
        self.submit("mark_unread")
        self.driver.get(list_url)
        self.assertIn("unread", self.driver.find_element(By.XPATH, row_with(subject)).get_attribute("class").split())
        self.open_row(subject)
        self.submit("delete")
        self.present("messages")
        self.assertEqual(self.driver.find_elements(By.XPATH, row_with(subject)), [])
        for url in (message_url, source_url, attachment_url):
            self.assertEqual(status_of(self.driver, url)[0], 404, "deleted: " + url)

    def keep_one(self, person, address, subject):
        """Delivers a message that stays, opens it and remembers its URLs (the isolation test fetches them as
        somebody else), then goes back to the list."""
        self.arrives_live(address, subject, attachment=("kept.txt", "text/plain", b"kept\n"))
        list_url = self.driver.current_url
        self.open_row(subject)
        self.seen[person] = {
            "message": self.driver.current_url, "source": self.find("view_source").get_attribute("href"),
            "attachment": self.present("attachments").find_element(By.CSS_SELECTOR, "a").get_attribute("href"),
        }
        # A person who holds several mailboxes picks one by a URL that names it: that URL is theirs alone.
        picker = self.driver.find_elements(
            By.XPATH, "//*[@id='mailboxes']//a[normalize-space()=%s]" % xpath_literal(address))
        if picker and len(self.driver.find_elements(By.XPATH, "//*[@id='mailboxes']//a")) > 1:
            self.seen[person]["mailbox"] = picker[0].get_attribute("href")
        self.driver.get(list_url)

    def sign_in_account(self, address, password):
        self.driver.delete_all_cookies()
        self.driver.get(self.base + ROUTES["sign_in"])
        self.present("account_sign_in")
        if not self.seen.get("sign-in page"):
            self.seen["sign-in page"] = True
            self.view("signed-out", "sign-in")
        self.submit("account_sign_in", {"address": address, "password": password})
        self.present("messages")
        self.assertEqual(self.find("signed_in_as").text.strip(), address)

    # -- the people ---------------------------------------------------------------------------------------------

    def test_1_mailtd_account(self):
        v1 = "web-v1-%s@%s" % (secrets.token_hex(3), self.domain)
        v2 = "web-v2-%s@%s" % (secrets.token_hex(3), self.domain)
        create_account(self.base, v1, password="v1 password")
        create_account(self.base, v2, key=auth_key(v2, "v2 password"))

        # A wrong password is refused and says so, with the address kept.
        self.driver.delete_all_cookies()
        self.driver.get(self.base + ROUTES["sign_in"])
        self.submit("account_sign_in", {"address": v1, "password": "not the password"})
        self.present("error")
        self.assertEqual(self.find("account_sign_in").find_element(By.NAME, "address").get_attribute("value"), v1)
        self.assertTrue(self.absent("messages"))

        self.sign_in_account(v2, "v2 password")  # a v2 account, signed in with its password
        self.view("account", "empty-list")
        self.message_flow("account", v2)
        self.keep_one("account", v2, "Kept for the v2 account")

        # Search: by text, from, subject.
        self.arrives_live(v2, "Invoice 42", sender="billing@example.org", text="pay by Friday")
        self.submit("search", {"text": "Friday"})
        self.present("messages")
        self.assertEqual([r.find_element(By.CLASS_NAME, "subject").text
                          for r in self.driver.find_elements(By.XPATH, ROW)], ["Invoice 42"])
        self.view("account", "search")
        self.driver.get(self.base + ROUTES["inbox"])
        self.submit("search", {"from": "billing@example.org"})
        self.present("messages")
        self.assertEqual(len(self.driver.find_elements(By.XPATH, ROW)), 1)

        self.sign_in_account(v1, "v1 password")  # a v1 account
        self.message_flow("account-v1", v1)
        self.keep_one("account-v1", v1, "Kept for the v1 account")

        # Sign out: the session's cookie no longer opens the list.
        session, list_url = self.driver.get_cookies(), self.driver.current_url
        self.assertEqual(status_of(self.driver, list_url, cookies=session)[0], 200)
        self.find("sign_out").click()
        self.present("account_sign_in")
        self.assertNotEqual(status_of(self.driver, list_url, cookies=session)[0], 200)

    def test_2_hostile_html(self):
        address = "web-hostile-%s@%s" % (secrets.token_hex(3), self.domain)
        create_account(self.base, address, password="hostile password")
        self.sign_in_account(address, "hostile password")
        self.remote.reset()
        hostile = hostile_message(self.remote.url, "mallory@evil.example", address)
        self.driver.execute_script("window.__sameDocument = true;")
        self.assertEqual(deliver_smtp("127.0.0.1", self.base.smtp_port, hostile.sender, [address], hostile.raw), {})
        waiter(self.driver, LIVE_SECONDS).until(
            EC.presence_of_element_located((By.XPATH, row_with(hostile.subject))))
        self.view("hostile", "list")
        list_url = self.driver.current_url
        self.open_row(hostile.subject)
        self.present("remote_blocked")
        frame = self.present("message_html")
        refreshed = time.monotonic() + 2  # past the message's meta refresh (1 s): a refresh would have fetched by then
        sandbox = frame.get_attribute("sandbox")
        self.assertIsNotNone(sandbox, "the HTML part is in a sandboxed frame")
        # No script runs in it; it keeps its origin (and nothing else) so that the page's script can size it.
        self.assertEqual(sandbox.split(), ["allow-same-origin"])
        self.driver.switch_to.frame(frame)
        try:
            image = waiter(self.driver, 5).until(EC.presence_of_element_located((By.ID, "cid-image")))
            waiter(self.driver, 5).until(lambda _: image.get_property("naturalWidth") == 1,
                                         "the cid: image is served from the message")
            message_height = self.driver.execute_script(
                "return Math.ceil(document.documentElement.getBoundingClientRect().height)")
            for clickable in ("hostile-submit", "hostile-javascript-link"):  # what a sanitizer left, clicked
                try:
                    self.driver.find_element(By.ID, clickable).click()
                except (NoSuchElementException, WebDriverException):
                    pass
        finally:
            self.driver.switch_to.default_content()
        # The frame is as tall as the message (its borders besides), not its CSS minimum (24rem) or a box that scrolls.
        waiter(self.driver, 5).until(
            lambda d: abs(d.execute_script("return arguments[0].clientHeight", frame) - message_height) <= 2,
            "the frame is sized to the message (%d px)" % message_height)
        clicked = time.monotonic() + 1  # what a click set off has fetched or run by then
        self.view("hostile", "message")
        hold_until(max(refreshed, clicked))
        self.assertIsNone(canary(self.driver), "script from the message ran")
        self.assertEqual(self.remote.hits(), [], "the message's remote content was fetched")
        self.assertTrue(self.driver.current_url.startswith(self.base), "the message navigated the page")

        # A short HTML part (issue 83 item 11): the frame shrinks to it, not to the 24rem (384 px) its CSS keeps for a
        # page without script. Measured by the paragraph's bottom, which, unlike the root of a part without a doctype
        # (quirks mode), does not stretch with the frame.
        short = "Short HTML %s" % secrets.token_hex(3)
        raw, _ = message("friend@example.net", address, short, text="One line.", html="<p id='short'>One line.</p>")
        self.assertEqual(deliver_smtp("127.0.0.1", self.base.smtp_port, "friend@example.net", [address], raw), {})
        self.driver.get(list_url)
        waiter(self.driver, LIVE_SECONDS).until(EC.presence_of_element_located((By.XPATH, row_with(short))))
        self.open_row(short)
        frame = self.present("message_html")
        self.driver.switch_to.frame(frame)
        try:
            bottom = waiter(self.driver, 5).until(lambda d: d.execute_script(
                "var p = document.getElementById('short'); return p && Math.ceil(p.getBoundingClientRect().bottom)"))
        finally:
            self.driver.switch_to.default_content()
        waiter(self.driver, 5).until(
            lambda d: bottom <= d.execute_script("return arguments[0].clientHeight", frame) <= bottom + 40,
            "the frame of a short part is sized to it (its paragraph ends at %d px; the frame is %s px)"
            % (bottom, self.driver.execute_script("return arguments[0].clientHeight", frame)))

    def test_3_pro_user(self):
        email, password = self.pros[0]
        bearer = pro_login(self.base, email, password)
        address = "web-pro-a-%s@%s" % (secrets.token_hex(3), self.domain)
        create_account(self.base, address, password="pro-made account", bearer=bearer)

        self.driver.delete_all_cookies()
        self.driver.get(self.base + ROUTES["sign_in"])
        self.submit("pro_sign_in", {"email": email, "password": password})
        self.present("mailboxes")
        self.assertEqual(self.find("signed_in_as").text.strip(), email)
        self.view("pro", "signed-in")
        self.open_link("mailboxes", address)
        self.present("messages")
        self.message_flow("pro", address)
        self.keep_one("pro", address, "Kept for the Pro user's account")

        # A token: created, shown once, works; a refresh does not show it again.
        self.find("dashboard").click()
        self.present("create_token")
        addresses = [e.text.strip() for e in self.present("accounts").find_elements(By.CLASS_NAME, "address")]
        self.assertIn(address, addresses)
        self.view("pro", "dashboard")
        self.submit("create_token", {"name": "ci-token"})
        token = self.present("token_shown").text.strip()
        self.assertTrue(token.startswith("tm_pro_"), token)
        self.assertNotIn(token, self.driver.current_url)
        self.view("pro", "token-created")
        self.assertEqual(http(self.base, "GET", "/api/user/me", bearer=token)[0], 200)
        self.driver.refresh()
        self.assertTrue(self.absent("token_shown"), "the token is shown once")
        names = [e.text for e in self.present("tokens").find_elements(By.CLASS_NAME, "name")]
        self.assertIn("ci-token", names)

        # A domain: added; its records shown, the TXT token the one the API holds, DKIM keys beside the MX.
        domain = "pro-%s.example" % secrets.token_hex(3)
        self.submit("add_domain", {"domain": domain})
        records = self.present("domain_records").find_elements(By.CLASS_NAME, "record")
        shown = [tuple(r.find_element(By.CLASS_NAME, c).text.strip() for c in ("type", "host", "value"))
                 for r in records]
        listed = http(self.base, "GET", "/api/user/domains", bearer=bearer)[2]["domains"]
        claim = next(d for d in listed if d["domain"] == domain)
        self.assertIn(("TXT", domain, claim["verify_token"]), shown)
        self.assertTrue(any(kind == "MX" and host == domain for kind, host, _ in shown), shown)
        dkim = [value for kind, host, value in shown if kind == "TXT" and host.endswith("._domainkey." + domain)]
        self.assertEqual([v.split(";")[1].strip() for v in dkim], ["k=rsa", "k=ed25519"], shown)
        # And what sending needs besides: SPF at the apex, DMARC at _dmarc.
        self.assertIn(("TXT", domain, "v=spf1 mx -all"), shown)
        self.assertTrue(any(host == "_dmarc." + domain and value.startswith("v=DMARC1;") for _, host, value in shown),
                        shown)
        for record in records:
            self.assertTrue(record.find_element(By.CLASS_NAME, "state").text.strip(), "each record's state")
        self.view("pro", "domain-added")

        # The sandbox: a capture sent with the token shows with its SPF, DKIM and DMARC verdicts.
        import smtplib
        raw, _ = message("app@example.org", "someone@example.com", "Sandbox capture", text="captured")
        with smtplib.SMTP("127.0.0.1", self.base.sandbox_port, timeout=30) as smtp:
            smtp.login("any", token)
            smtp.sendmail("app@example.org", ["someone@example.com"], raw)
        self.driver.get(self.base + ROUTES["inbox"])
        self.open_link("mailboxes", "Sandbox")
        self.present("messages")
        self.open_row("Sandbox capture")
        verdicts = self.present("auth_results").text.lower()
        for check in ("spf", "dkim", "dmarc"):
            self.assertIn(check, verdicts)
        self.view("pro", "sandbox-message")

        # Signed in again by pasting the token instead of the password.
        self.driver.delete_all_cookies()
        self.driver.get(self.base + ROUTES["sign_in"])
        self.submit("pro_token_sign_in", {"token": token})
        self.present("mailboxes")
        self.assertEqual(self.find("signed_in_as").text.strip(), email)

    def sign_in_owner(self, email, password):
        self.driver.delete_all_cookies()
        self.driver.get(self.base + ROUTES["owner_sign_in"] + "?next=" + urllib.parse.quote(ROUTES["inbox"]))
        self.submit("owner_sign_in", {"email": email, "password": password})
        self.wait.until(lambda d: ROUTES["owner_sign_in"] not in d.current_url)

    def test_4_owner(self):
        email, password = self.owners[0]
        self.sign_in_owner(email, password)
        inboxes = []
        for name in ("web-agent-%s" % secrets.token_hex(3), "web-other-%s" % secrets.token_hex(3)):
            self.driver.get(self.base + "/owner")
            form = self.wait.until(EC.presence_of_element_located((By.ID, "create-inbox-form")))
            form.find_element(By.NAME, "username").send_keys(name)
            form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            self.wait.until(EC.presence_of_element_located((By.ID, "api-key-shown")))
            inboxes.append(self.driver.find_element(By.ID, "key-address").text.strip())

        # Every inbox the owner holds, one at a time.
        self.driver.get(self.base + ROUTES["inbox"])
        links = [a.text.strip() for a in self.present("mailboxes").find_elements(By.TAG_NAME, "a")]
        self.assertTrue(set(inboxes) <= set(links), links)
        self.view("owner", "inboxes")
        self.open_link("mailboxes", inboxes[0])
        self.present("messages")
        self.message_flow("owner", inboxes[0])
        self.keep_one("owner", inboxes[0], "Kept for the owner")

        # Reply as the agent: the message came from another agent on this server; the reply reaches its inbox.
        correspondent = JMAPAgent(self.base, "web-corr-%s" % secrets.token_hex(3))  # usernames: 21 characters at most
        subject = "Question %s" % secrets.token_hex(3)
        self.arrives_live(inboxes[0], subject, sender=correspondent.address, text="Can you confirm?")
        self.open_row(subject)
        self.find("reply").click()
        form = self.present("compose")
        self.assertIn(correspondent.address, form.find_element(By.NAME, "to").get_attribute("value"))
        self.assertEqual(form.find_element(By.NAME, "subject").get_attribute("value"), "Re: " + subject)
        self.view("owner", "compose")
        self.submit("compose", {"body": "Confirmed."})
        self.present("notice")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            received = [m["subject"] for m in correspondent.inbox()]
            if "Re: " + subject in received:
                break
            time.sleep(0.2)
        self.assertIn("Re: " + subject, received, "the reply arrived in the correspondent's inbox")
        self.find("sent").click()
        self.present("messages")
        self.driver.find_element(By.XPATH, row_with("Re: " + subject))
        self.view("owner", "sent")

        # Mail to another domain on this server (outbound delivery off) is held, not sent: the notice says why, the
        # inbox's page lists it with a Release button, and a release while delivery is off leaves it held, saying so.
        self.driver.get(self.base + "/inbox/m/" + urllib.parse.quote(inboxes[0]) + "/compose")
        self.submit("compose", {"to": "someone@elsewhere.example", "subject": "Held " + subject, "body": "Out."})
        self.assertIn("Held in this server's outbox, not sent: outbound delivery is off on this server",
                      self.present("notice").text)
        self.driver.get(self.base + "/inbox/m/" + urllib.parse.quote(inboxes[0]))
        held = self.wait.until(EC.presence_of_element_located((By.ID, "held")))
        self.assertIn("held: outbound delivery is off on this server", held.text)
        self.view("owner", "held")
        click_through(self.driver, held.find_element(By.CSS_SELECTOR, "button[id^=release-]"))
        self.assertIn("Still held, not sent: outbound delivery is off on this server", self.present("notice").text)

    def test_5_web_link(self):
        address = "web-linked-%s@%s" % (secrets.token_hex(3), self.domain)
        create_account(self.base, address, password="linked password")
        printed = subprocess.run([BINARY, "web", "link", "--address", address, "--data-dir", self.base.data],
                                 capture_output=True, text=True, timeout=120, env=dict(os.environ))
        self.assertEqual(printed.returncode, 0, printed.stdout + printed.stderr)
        found = re.search(r"(?:https?://[^/\s]+)?(/inbox/\S+)", printed.stdout)
        self.assertIsNotNone(found, "a link in: " + printed.stdout)
        link = self.base + found.group(1)

        self.driver.delete_all_cookies()
        self.driver.get(link)
        self.view("link", "open")  # fetching the link (a preview, a scanner) shows a button and uses nothing
        self.submit("open_link")
        self.present("messages")
        self.assertEqual(self.find("signed_in_as").text.strip(), address)
        self.assertNotIn(found.group(1), self.driver.current_url, "the link leaves the address bar")
        self.view("link", "list")
        self.message_flow("link", address)
        self.keep_one("link", address, "Kept for the linked mailbox")

        # Single use: the same link opens nothing a second time.
        self.driver.delete_all_cookies()
        self.driver.get(link)
        self.submit("open_link")
        self.present("error")
        self.assertTrue(self.absent("messages"), "a used link opened the mailbox again")
        self.assertTrue(self.absent("signed_in_as"), "a used link signed somebody in")

    def test_6_all_mail_link(self):
        """`postern web link --all`: every mailbox that holds mail, read-only, the live list and the message page."""
        address = "all-mail-%s@%s" % (secrets.token_hex(3), self.domain)
        create_account(self.base, address, password="all mail password")
        # The view lists the mailboxes that hold mail: this one once its first message is in.
        raw, _ = message("friend@example.net", address, "First for the operator", text="First.")
        self.assertEqual(deliver_smtp("127.0.0.1", self.base.smtp_port, "friend@example.net", [address], raw), {})
        printed = subprocess.run([BINARY, "web", "link", "--all", "--data-dir", self.base.data],
                                 capture_output=True, text=True, timeout=120, env=dict(os.environ))
        self.assertEqual(printed.returncode, 0, printed.stdout + printed.stderr)
        found = re.search(r"(?:https?://[^/\s]+)?(/inbox/link/\S+)", printed.stdout)
        self.assertIsNotNone(found, "a link in: " + printed.stdout)

        self.driver.delete_all_cookies()
        self.driver.get(self.base + found.group(1))
        self.submit("open_link")
        self.present("mailboxes")
        self.assertEqual(self.find("signed_in_as").text.strip(), "All mail (read-only)")
        self.assertIn(address, self.find("mailboxes").text)
        self.view("all-mail", "mailboxes")
        self.driver.get(self.base + "/inbox/m/" + urllib.parse.quote(address))
        subject = "Read by the operator %s" % secrets.token_hex(3)
        self.arrives_live(address, subject)
        self.view("all-mail", "list")
        self.open_row(subject)
        self.assertEqual(self.find("message_subject").text, subject)
        self.assertTrue(self.absent("delete"), "the all-mail view deletes nothing")
        self.assertTrue(self.absent("mark_unread"), "the all-mail view marks nothing")
        self.assertTrue(self.absent("reply"), "the all-mail view sends nothing")
        self.view("all-mail", "message")
        self.driver.get(self.base + "/inbox/m/" + urllib.parse.quote(address))
        self.assertIn("unread", self.driver.find_element(By.XPATH, row_with(subject)).get_attribute("class").split(),
                      "reading it in the all-mail view leaves it unread for its owner")

    # -- isolation ----------------------------------------------------------------------------------------------

    def test_9_isolation(self):
        """Each person's message, source, attachment and mailbox URLs answer 404 to everybody else's session."""
        for person in ("account", "account-v1", "pro", "owner", "link"):
            self.assertIn(person, self.seen, "the %s test ran first" % person)

        def refused(kind, urls):
            for name, url in urls.items():
                self.assertEqual(status_of(self.driver, url)[0], 404, "%s: %s %s" % (kind, name, url))

        # Another Mail.td account sees none of the v2 account's, nor a Pro user's account's.
        self.sign_in_account(*self.fresh_account())
        refused("another account's", self.seen["account"])
        refused("a Pro user's account's, to a free account", self.seen["pro"])
        refused("a linked mailbox's, to another account", self.seen["link"])
        # Another owner: owner B sees nothing of owner A's inbox.
        self.sign_in_owner(*self.owners[1])
        self.driver.get(self.base + ROUTES["inbox"])
        refused("another owner's", self.seen["owner"])
        # Another Pro tenant: Pro user B sees nothing of Pro user A's account.
        self.driver.delete_all_cookies()
        self.driver.get(self.base + ROUTES["sign_in"])
        self.submit("pro_sign_in", {"email": self.pros[1][0], "password": self.pros[1][1]})
        self.present("mailboxes")
        refused("another Pro tenant's", self.seen["pro"])
        refused("an owner's, to a Pro user", self.seen["owner"])

    def fresh_account(self):
        address = "web-other-%s@%s" % (secrets.token_hex(3), self.domain)
        create_account(self.base, address, password="other password")
        return address, "other password"

    # -- JavaScript off -----------------------------------------------------------------------------------------

    def test_6_javascript_off(self):
        """With JavaScript off the list, a message and the reload link still work."""
        address, password = self.fresh_account()
        raw, _ = message("friend@example.net", address, "Read without script", text="plain pages")
        deliver_smtp("127.0.0.1", self.base.smtp_port, "friend@example.net", [address], raw)
        driver = self.driver
        clear_cookies(driver)  # a new visitor; and after, no session left for the next walk
        with scripts_off(driver):
            driver.get(self.base + ROUTES["sign_in"])
            form = driver.find_element(*SELECTORS["account_sign_in"])
            form.find_element(By.NAME, "address").send_keys(address)
            form.find_element(By.NAME, "password").send_keys(password)
            form.find_element(By.CSS_SELECTOR, "button[type=submit], input[type=submit]").click()
            waiter(driver).until(EC.presence_of_element_located(SELECTORS["messages"]))
            self.assertTrue(driver.find_element(*SELECTORS["live"]).find_elements(By.TAG_NAME, "a"), "a reload link")
            driver.find_element(By.XPATH, row_with("Read without script")).find_element(
                By.CSS_SELECTOR, ".subject a").click()
            waiter(driver).until(EC.presence_of_element_located(SELECTORS["message_text"]))
            self.assertIn("plain pages", driver.find_element(*SELECTORS["message_text"]).text)
            self.assertTrue(driver.save_screenshot(os.path.join(ARTIFACTS, "inbox-no-script-message.png")))
        clear_cookies(driver)


if __name__ == "__main__":
    unittest.main(verbosity=2, failfast=False)
