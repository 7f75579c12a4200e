#!/usr/bin/env python3
"""Proves, each on its own, the pieces the web inbox's browser test (test_web_inbox.py) stands on, so that a failure
there is the pages' and not the harness's:

- the hit counter counts every request, with its headers, and serves a test's pages;
- the hostile message is the MIME it says (text, hostile HTML naming every vector, a cid: PNG, an attachment), and
  reaches Postern's store both over Postern's SMTP listener and through `postern mail deliver`, whole (source,
  attachment and inline part read back through Mail.td's API);
- the canary and the counter see an attack when one happens: the hostile HTML opened as a page runs its scripts
  (the canary is set, the counter has hits), in a frame sandboxed with scripts allowed the postMessage route sets
  the canary, and a sandboxed frame without its CSP still fetches remote images (the counter sees it); shown the
  way the issue asks (a sandboxed iframe without allow-scripts, its document under a CSP
  of default-src 'none'), the same HTML sets nothing and fetches nothing, even when the test clicks its form and its
  javascript: link;
- axe-core finds the serious and critical violations of a broken page and none on a clean one;
- the keyboard walk names a <div onclick> that Tab cannot reach and nothing on a clean page;
- the layout rules (postern_testkit.layout) name each thing a page of the old mistakes does (a current link that looks
  like the others, a 📎, an address broken mid-word, a size wrapped, buttons touching, an empty "Priority:", "1024 MB",
  a Delete styled as the main action, a notice without its kind, a UUID broken, an address over three lines)
  and nothing on a page that keeps them, at 375 px;
- a download lands in the test's directory with the bytes served, and status_of sends the browser's cookies.

    POSTERN_BIN=.build/debug/postern python3 Tests/Browser/test_browser_kit.py

Exit status 0 when every check passed. Screenshots in $POSTERN_ARTIFACTS (default ./artifacts)/browser/kit-*.png.
"""

import contextlib
import email
import email.policy
import os
import shutil
import sys
import tempfile
import time
import unittest
import urllib.request

from selenium.common.exceptions import TimeoutException

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, http, postern  # noqa: E402
from postern_testkit.accessibility import blocking_violations, unreachable_by_keyboard  # noqa: E402
from postern_testkit.browser import download, hold_until, make_driver, status_of, waiter  # noqa: E402
from postern_testkit.layout import layout_problems  # noqa: E402
from postern_testkit.hostile import HOSTILE_VECTORS, HitCounter, arm_canary, canary, hostile_message  # noqa: E402
from postern_testkit.mail_fixtures import deliver_cli, deliver_smtp, png_pixel  # noqa: E402
from postern_testkit.mailtd import create_account, domains  # noqa: E402

ARTIFACTS = os.path.join(os.environ.get("POSTERN_ARTIFACTS", "artifacts"), "browser")
BINARY = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))

# The message view the issue asks for, in miniature: the HTML part in a frame sandboxed without allow-scripts, the
# frame's document under a CSP of its own that allows nothing but inline style and the message's own images.
SAFE_VIEW = """<!DOCTYPE html><html lang="en"><head><title>message</title></head><body><main><h1>Message</h1>
<iframe id="message-html" title="The message's HTML" sandbox src="/message/html" width="800" height="900"></iframe>
</main></body></html>"""
SAFE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"

CLEAN_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Clean</title></head><body>
<header><nav aria-label="main"><a href="/one">One</a></nav></header>
<main><h1>Clean page</h1><form><label for="q">Search</label><input id="q" name="q">
<button type="submit">Search</button></form><p><a href="/two">Two</a></p>
<details><summary>More</summary><p>Text</p></details></main></body></html>"""
BROKEN_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Broken</title></head><body><main><h1>Broken page</h1>
<img src="/pixel.png"><button></button><input id="nameless">
<div id="fake-button" onclick="this.textContent='clicked'">Delete</div></main></body></html>"""


# The mistakes of issue 51's pages, each once, at a phone's width; and the same page done right.
LAYOUT_CSS = """<style>body{width:300px;font:16px sans-serif}a[aria-current]{font-weight:700}td{display:block}
td[data-label]::before{content:attr(data-label) ": "}.narrow{width:90px;overflow-wrap:anywhere}
.narrower{width:40px}
.tight{width:120px}.tight button{display:block;margin:0}.spaced button{display:block;margin:0 0 .5rem}</style>"""
LAYOUT_BROKEN = """<!DOCTYPE html><html lang="en"><head><title>Broken layout</title>%s<style>a[aria-current]{font-weight:400}
</style></head><body><nav><a href="/a" aria-current="page">Inbox</a> <a href="/b">Sent</a></nav>
<table><tr><td class="from narrow">someone.with.a.long.name@example.com</td><td class="size narrower">1234567 B</td>
<td data-label="Attachments"><span>📎</span></td><td data-label="Priority"></td></tr></table>
<div class="tight"><button>One</button><button>Two</button></div><p>250 B of 1024 MB</p>
<p class="flash">Held, not sent.</p><div class="spaced"><button>Delete</button></div>
<table><tr><td class="narrow">0f8fad5b-d9cb-469f-a165-70867728950e</td></tr></table></body></html>""" % LAYOUT_CSS
LAYOUT_CLEAN = """<!DOCTYPE html><html lang="en"><head><title>Clean layout</title>%s</head><body>
<nav><a href="/a" aria-current="page">Inbox</a> <a href="/b">Sent</a></nav>
<table><tr><td class="from" style="width:240px">someone.<wbr>with.<wbr>a.<wbr>long.<wbr>name<wbr>@example.<wbr>com</td>
<td class="size">1234567&nbsp;B</td><td data-label="Attachments"><svg role="img" aria-label="Has attachments"
width="16" height="16"></svg></td><td></td></tr></table>
<div class="spaced"><button>One</button><button>Two</button><button class="danger">Delete</button>
<button class="secondary">Deny</button></div><p>250&nbsp;B of 1&nbsp;GiB</p>
<p class="flash warning">Held, not sent.</p>
<table><tr><td style="white-space:nowrap">0f8fad5b-d9cb-469f-a165-70867728950e</td></tr></table></body></html>""" % LAYOUT_CSS


class BrowserKit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.downloads = tempfile.mkdtemp(prefix="postern-kit-downloads-")
        cls.driver = make_driver(downloads=cls.downloads)
        arm_canary(cls.driver)
        cls.remote, cls.pages = HitCounter(), HitCounter()
        os.makedirs(ARTIFACTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.remote.close()
        cls.pages.close()
        shutil.rmtree(cls.downloads, ignore_errors=True)

    def setUp(self):
        self.remote.reset()
        self.driver.get("about:blank")

    def screenshot(self, name):
        path = os.path.join(ARTIFACTS, "kit-%s.png" % name)
        self.assertTrue(self.driver.save_screenshot(path))
        print("screenshot:", os.path.abspath(path), file=sys.stderr)

    def hostile(self):
        return hostile_message(self.remote.url, "mallory@evil.example", "victim@example.com")

    def test_counter_counts_every_request_and_serves_pages(self):
        url = self.pages.page("/status", "gone", status=404)
        self.assertEqual(urllib.request.urlopen(self.remote.url + "/a.png").read(), png_pixel())
        request = urllib.request.Request(self.remote.url + "/form?x=1", data=b"q=1", method="POST")
        self.assertEqual(urllib.request.urlopen(request).status, 200)
        self.assertEqual(self.remote.hits(), [("GET", "/a.png"), ("POST", "/form?x=1")])
        self.assertEqual(self.remote.hits("/form"), [("POST", "/form?x=1")])
        with self.assertRaises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(url)
        self.assertEqual(answer.exception.code, 404)

    def test_hostile_message_is_the_mime_it_says(self):
        hostile = self.hostile()
        parsed = email.message_from_bytes(hostile.raw, policy=email.policy.default)
        kinds = [part.get_content_type() for part in parsed.walk()]
        self.assertEqual(kinds, ["multipart/mixed", "multipart/alternative", "text/plain", "multipart/related",
                                 "text/html", "image/png", "text/plain"])
        html = parsed.get_body(("html",)).get_content()
        for vector, path in HOSTILE_VECTORS.items():
            self.assertIn(self.remote.url + path.replace("/based/relative.png", "/based/"), html, vector)
        self.assertIn('src="cid:inline-pixel"', html)
        inline = next(p for p in parsed.walk() if p.get("Content-ID") == "<inline-pixel>")
        self.assertEqual(inline.get_content(), hostile.cid_image)
        attachment = next(parsed.iter_attachments())
        self.assertEqual((attachment.get_filename(), attachment.get_content().encode()),
                         (hostile.attachment_name, hostile.attachment))
        self.assertTrue(all(line.endswith(b"\r") for line in hostile.raw.split(b"\n")[:-1]), "CRLF line ends")

    def test_hostile_message_reaches_the_store_over_smtp_and_mail_deliver(self):
        with postern({"POSTERN_MAILBOX_POW_REQUIRED": "off"}) as base:
            address = "kit-%d@%s" % (os.getpid(), domains(base)[0])
            account = create_account(base, address, password="kit-password")
            over_smtp = hostile_message(self.remote.url, "mallory@evil.example", address, subject="over SMTP")
            self.assertEqual(deliver_smtp("127.0.0.1", base.smtp_port, over_smtp.sender, [address], over_smtp.raw),
                             {})
            by_cli = hostile_message(self.remote.url, "mallory@evil.example", address, subject="by mail deliver")
            deliver_cli(BINARY, ["--data-dir", base.data], [address], by_cli.raw,
                        env=dict(os.environ, POSTERN_LOG_LEVEL="error"))
            bearer, path = account["token"], "/api/accounts/%s/messages" % account["id"]
            status, _, listed = http(base, "GET", path, bearer=bearer)
            self.assertEqual(status, 200)
            listed = listed if isinstance(listed, list) else listed.get("messages", [])
            self.assertEqual(sorted(m["subject"] for m in listed), ["by mail deliver", "over SMTP"])
            for sent in (over_smtp, by_cli):
                stored = next(m for m in listed if m["subject"] == sent.subject)
                status, _, source = http(base, "GET", "%s/%s/source" % (path, stored["id"]), bearer=bearer)
                self.assertEqual(status, 200)
                source = source if isinstance(source, str) else source.get("data", "")
                self.assertIn(sent.message_id, source)
                self.assertIn("cid:inline-pixel", source.replace("=\r\n", "").replace("=\n", ""))
                status, _, detail = http(base, "GET", "%s/%s" % (path, stored["id"]), bearer=bearer)
                parts = {a["filename"]: a["index"] for a in detail["attachments"]}
                self.assertEqual(set(parts), {sent.attachment_name, "inline-pixel.png"})
                for name, expected in ((sent.attachment_name, sent.attachment), ("inline-pixel.png", sent.cid_image)):
                    request = urllib.request.Request(base + "%s/%s/attachments/%s" % (path, stored["id"], parts[name]),
                                                     headers={"Authorization": "Bearer " + bearer})
                    with urllib.request.urlopen(request) as answer:
                        self.assertEqual(answer.read(), expected, name)
        self.assertEqual(self.remote.hits(), [], "storing the message fetched nothing")

    def test_hostile_html_as_a_page_runs_and_fetches(self):
        self.driver.get(self.pages.page("/naked", self.hostile().html))
        self.assertIsNotNone(canary(self.driver), "the detector sees script run")
        expected = ("/pwned/inline-script", "/script.js", "/css-background.png", "/remote-image.png", "/refresh")

        def fetched(_=None):
            return {path.split("?")[0] for _, path in self.remote.hits()}

        with contextlib.suppress(TimeoutException):  # the meta refresh fires after 1 s
            waiter(self.driver, 10).until(lambda _: fetched().issuperset(expected))
        for path in expected:
            self.assertIn(path, fetched())

    def test_sandbox_with_scripts_is_seen_through_post_message(self):
        self.pages.page("/message/html", self.hostile().html)
        self.driver.get(self.pages.page("/scripted", SAFE_VIEW.replace("sandbox ", 'sandbox="allow-scripts" ')))
        WAIT = time.monotonic() + 10
        while canary(self.driver) is None and time.monotonic() < WAIT:
            time.sleep(0.1)
        self.assertIsNotNone(canary(self.driver), "an opaque-origin frame that runs script is caught")

    def test_sandbox_without_its_csp_still_fetches(self):
        self.pages.page("/message/html", self.hostile().html)
        self.driver.get(self.pages.page("/message", SAFE_VIEW))
        time.sleep(2)
        self.assertIsNone(canary(self.driver), "no script runs in the sandbox")
        fetched = {path.split("?")[0] for _, path in self.remote.hits()}
        self.assertIn("/remote-image.png", fetched, "the sandbox alone does not stop remote images: the CSP does")

    def test_sandboxed_frame_under_csp_runs_nothing_and_fetches_nothing(self):
        hostile = self.hostile()
        # The message's cid: image, served from the server's own origin as the pages are to serve it; by an absolute
        # URL, since the message's own <base href> would send a relative one to the remote server.
        html = hostile.html.replace("cid:inline-pixel", self.pages.url + "/message/cid/inline-pixel")
        self.pages.page("/message/cid/inline-pixel", hostile.cid_image, "image/png")
        self.pages.page("/message/html", html, headers={"Content-Security-Policy": SAFE_CSP})
        self.driver.get(self.pages.page("/message", SAFE_VIEW))
        refreshed = time.monotonic() + 2  # past the meta refresh's second: a refresh would have fetched by then
        frame = self.driver.find_element("id", "message-html")
        self.driver.switch_to.frame(frame)
        image = waiter(self.driver, 5).until(lambda d: d.find_element("id", "cid-image"))
        with contextlib.suppress(TimeoutException):
            waiter(self.driver, 5).until(lambda _: image.get_property("naturalWidth") == 1)
        self.assertEqual(image.get_property("naturalWidth"), 1)
        self.driver.find_element("id", "hostile-submit").click()
        self.driver.find_element("id", "hostile-javascript-link").click()
        self.driver.switch_to.default_content()
        clicked = time.monotonic() + 1  # what a click set off has fetched or run by then
        self.screenshot("sandboxed-message")
        hold_until(max(refreshed, clicked))
        self.assertIsNone(canary(self.driver))
        self.assertEqual(self.remote.hits(), [])
        self.assertEqual(self.driver.current_url, self.pages.url + "/message", "nothing navigated the page")

    def test_axe_lists_serious_violations_and_passes_a_clean_page(self):
        self.driver.get(self.pages.page("/broken", BROKEN_PAGE))
        found = blocking_violations(self.driver)
        rules = {line.split(" ", 1)[0] for line in found}
        self.assertTrue({"image-alt", "button-name", "label"} <= rules, found)
        self.driver.get(self.pages.page("/clean", CLEAN_PAGE))
        self.assertEqual(blocking_violations(self.driver), [])

    def test_keyboard_walk_names_what_tab_cannot_reach(self):
        self.driver.get(self.pages.page("/broken", BROKEN_PAGE))
        self.assertEqual(unreachable_by_keyboard(self.driver), ['div#fake-button "Delete"'])
        self.driver.get(self.pages.page("/clean", CLEAN_PAGE))
        self.assertEqual(unreachable_by_keyboard(self.driver), [])

    def test_layout_rules_name_each_old_mistake_and_pass_a_clean_page(self):
        self.driver.get(self.pages.page("/layout-broken", LAYOUT_BROKEN))
        found = layout_problems(self.driver)
        for expected in ("the current link", "an emoji stands for something", "an address breaks mid-word",
                         "a size wraps", "buttons touch", 'an empty "Priority" label', "a size in decimal units",
                         'the "Delete" button is styled as the main action', "a notice without its kind",
                         "a UUID breaks", "an address takes"):
            self.assertTrue(any(line.startswith(expected) for line in found), (expected, found))
        self.driver.get(self.pages.page("/layout-clean", LAYOUT_CLEAN))
        self.assertEqual(layout_problems(self.driver), [])

    def test_download_and_status_with_the_browsers_cookies(self):
        data = b"attachment bytes \x00\x01\n"
        self.pages.page("/file", data, "application/octet-stream",
                        {"Content-Disposition": 'attachment; filename="kit-file.bin"'})
        self.driver.get(self.pages.page("/links", '<a id="get" href="/file">file</a>',
                                        headers={"Set-Cookie": "kit_session=s3cret; Path=/"}))
        name, body = download(self.driver, self.driver.find_element("id", "get"), self.downloads)
        self.assertEqual((name, body), ("kit-file.bin", data))
        url = self.pages.page("/private", "nope", status=404)
        self.assertEqual(status_of(self.driver, url), (404, None))
        self.assertEqual(self.pages.headers("/private").get("Cookie"), "kit_session=s3cret")


if __name__ == "__main__":
    unittest.main(verbosity=2)
