"""A browser-less driver of the owner sign-in and OAuth consent forms (the form contract), on the standard
library only: `html.parser` reads the forms, `urllib` posts them with a cookie jar and follows no redirect itself.

    driver = FormDriver(base)
    callback = driver.authorize(url, email, password, scopes=["mail.read"], new_inbox="my-inbox", reach="inbox")

returns the `Location` the consent POST redirects to (the app's redirect URI with `code`, `state`, `iss`), or the
error redirect of the authorization endpoint.
"""

import http.cookiejar
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser


class Forms(HTMLParser):
    """Every form of a page: its action and its inputs (name, type, value, checked), buttons included."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action", ""), "id": attrs.get("id"), "inputs": []})
        elif tag in ("input", "button") and self.forms and attrs.get("name"):
            self.forms[-1]["inputs"].append({
                "name": attrs["name"], "type": attrs.get("type", "text" if tag == "input" else "submit"),
                "value": attrs.get("value", ""), "checked": "checked" in attrs,
            })

    def form(self, action):
        matching = [form for form in self.forms if form["action"] == action]
        if len(matching) != 1:
            raise AssertionError(f"{len(matching)} forms post to {action}")
        return matching[0]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follows no redirect: a 3xx answer comes back as itself (an HTTPError to `urlopen`)."""

    def redirect_request(self, *args, **kwargs):
        return None


class FormDriver:
    """A cookie jar and the two forms: sign-in (`email`, `password`) and consent (`scope`, `account_id` or
    `new_inbox`, `reach` = `all` | `inbox` when offered, `decision`), each with its hidden `csrf_token`."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect())

    def request(self, method, url, fields=None):
        """(status, Location header, body text); the response's headers are kept in `last_headers`."""
        data = urllib.parse.urlencode(fields, doseq=True).encode() if fields is not None else None
        request = urllib.request.Request(urllib.parse.urljoin(self.base, url), data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with self.opener.open(request, timeout=60) as response:
                self.last_headers = response.headers
                return response.status, response.headers.get("Location"), response.read().decode()
        except urllib.error.HTTPError as error:
            self.last_headers = error.headers
            return error.code, error.headers.get("Location"), error.read().decode()

    @staticmethod
    def forms(html):
        parser = Forms()
        parser.feed(html)
        return parser

    @staticmethod
    def hidden(form):
        return {i["name"]: i["value"] for i in form["inputs"] if i["type"] == "hidden"}

    def sign_in(self, location, email, password):
        """Fills the sign-in page at `location`; returns where it sends the browser next."""
        status, _, html = self.request("GET", location)
        assert status == 200, f"sign-in page: {status}"
        form = self.forms(html).form("/owner/sign-in")
        fields = self.hidden(form) | {"email": email, "password": password}
        status, location, _ = self.request("POST", form["action"], fields)
        assert status == 303, f"sign-in: {status}"
        return location

    def consent_page(self, url, email, password):
        """Opens the authorization URL, signing in when sent to; returns (status, Location, html) of the consent
        page or of the redirect the authorization endpoint answered with."""
        status, location, html = self.request("GET", url)
        if status == 303 and location.startswith("/owner/sign-in"):
            status, location, html = self.request("GET", self.sign_in(location, email, password))
        return status, location, html

    def authorize(self, url, email, password, scopes=None, account=None, new_inbox=None, decision="approve",
                  reach=None):
        """Runs sign-in and consent for the authorization URL `url`; returns the Location of the redirect back to
        the app. `scopes` None keeps the boxes as ticked; `account` None picks the first inbox offered; `reach`
        "inbox" binds the grant to the one picked, and None or "all" reaches every inbox the owner holds (what the
        tests that pass none were written for; the page checks "Only this inbox" first since issue 83 item 11)."""
        status, location, html = self.consent_page(url, email, password)
        if status != 200:
            return location
        form = self.forms(html).form("/oauth/consent")
        fields = self.hidden(form)
        boxes = [i["value"] for i in form["inputs"] if i["name"] == "scope" and i["checked"]]
        fields["scope"] = boxes if scopes is None else [s for s in scopes if s in boxes]
        radios = [i["value"] for i in form["inputs"] if i["name"] == "account_id"]
        if new_inbox:
            fields["new_inbox"] = new_inbox
        elif account or radios:
            fields["account_id"] = account or radios[0]
        reaches = [i["value"] for i in form["inputs"] if i["name"] == "reach"]
        if reaches:
            fields["reach"] = reach or "all"
        fields["decision"] = decision
        status, location, _ = self.request("POST", form["action"], fields)
        assert status in (302, 303), f"consent: {status}"
        return location
