"""The identity provider of the sign-in provider tests (issue 54): oidc-provider-mock from PyPI (authlib under Flask:
discovery, RS256 id_tokens, any claim a test sets, `email_verified: false` included) on a loopback port, and the
browser that walks a login through Postern, the provider and back; import it by name.

- `mock_provider(**options)`: installs the pinned version into .build/client-sdks/ on first use and yields the provider's URL
- `set_user(provider, sub, claims)`: the claims the provider gives `sub`
- `provider_env(provider, signup, surfaces)`: Postern's settings for the provider `mock` (private network allowed)
- `ProviderBrowser`: a `FormDriver` whose cookie jar is at hand and which follows no redirect, so that each hop
  (Postern, the provider, back) is checked: `cookie`, `form`, `to_provider`, `at_provider`
- `moved_on(status, body)`: where a page answered 200 moves the browser on to by itself (its meta refresh)
- `postern_command(base, *arguments)`: the CLI against the server's data directory and database; `audit_events(base)`
  its trail
"""

import contextlib
import html
import http.cookiejar
import json
import logging
import os
import re
import subprocess
import urllib.parse
import urllib.request

from .forms import FormDriver, NoRedirect
from .server import ROOT, install_packages

MOCK_VERSION = "0.3.4"
CLIENT_ID, CLIENT_SECRET = "postern-test-client", "postern-test-secret"


def install_mock():
    """Installs oidc-provider-mock into .build/client-sdks unless it is there (half a minute of pip on a fresh clone);
    scripts/bootstrap --test does it beside the build, so that no sign-in test waits for it."""
    install_packages(f"oidc-provider-mock-{MOCK_VERSION}", [f"oidc-provider-mock=={MOCK_VERSION}"],
                     ["oidc_provider_mock"])


@contextlib.contextmanager
def mock_provider(**options):
    """`options` are `run_server_in_thread`'s (e.g. `access_token_max_age`, which also sets the id_token's `exp`)."""
    install_mock()
    import oidc_provider_mock
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with oidc_provider_mock.run_server_in_thread(port=0, **options) as server:
        yield f"http://127.0.0.1:{server.server_port}"


def set_user(provider, sub, claims):
    request = urllib.request.Request(f"{provider}/users/{urllib.parse.quote(sub)}", method="PUT",
                                     data=json.dumps(claims).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 204


def provider_env(provider, signup, surfaces="owners"):
    return {
        "POSTERN_OIDC_PROVIDERS": "mock", "POSTERN_OIDC_MOCK_ISSUER": provider,
        "POSTERN_OIDC_MOCK_CLIENT_ID": CLIENT_ID, "POSTERN_OIDC_MOCK_CLIENT_SECRET": CLIENT_SECRET,
        "POSTERN_OIDC_MOCK_DISPLAY_NAME": "Mock ID", "POSTERN_OIDC_MOCK_ALLOW_PRIVATE_NETWORK": "true",
        "POSTERN_OIDC_MOCK_ALLOW_SIGNUP": "true" if signup else "false", "POSTERN_OIDC_MOCK_SURFACES": surfaces,
    }


class ProviderBrowser(FormDriver):
    """The form driver with its cookie jar at hand, following no redirect by itself."""

    def __init__(self, base):
        super().__init__(base)
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())

    def cookie(self, name):
        return next((cookie for cookie in self.jar if cookie.name == name and cookie.value), None)

    def form(self, html, action, **match):
        """The hidden fields of the first form posting to `action` whose fields hold `match`."""
        for form in FormDriver.forms(html).forms:
            if form["action"] != action:
                continue
            names = {i["name"]: i["value"] for i in form["inputs"]}
            if all(names.get(k) == v for k, v in match.items()):
                return {i["name"]: i["value"] for i in form["inputs"] if i["type"] == "hidden"}
        raise AssertionError(f"no form to {action} with {match}")

    def to_provider(self, start_fields, start_path="/oidc/start"):
        """Posts a button's form; returns the provider's authorization URL its answer moves the browser on to."""
        status, location, body = self.request("POST", start_path, start_fields)
        url = moved_on(status, body)
        assert url and self.cookie("postern_oidc"), f"{start_path}: {status} {location} {body[:300]}"
        return url

    def at_provider(self, authorize_url, sub):
        """Signs in as `sub` on the provider's page; returns the callback URL it sends the browser back to."""
        status, location, body = self.request("POST", authorize_url, {"sub": sub})
        assert status == 302 and location, f"provider authorize: {status} {body[:300]}"
        return location


def moved_on(status, body):
    """Where a 200 page moves the browser on to by itself (its meta refresh), else None. Postern answers so, rather
    than with a 303, a form whose answer leaves for the provider (the button, the owner's sign-out with `_LOGOUT`):
    its pages' CSP `form-action 'self'` forbids a browser to follow a form's redirect to another site."""
    found = re.search(r'<meta http-equiv="refresh" content="0; url=([^"]*)">', body or "")
    return html.unescape(found[1]) if status == 200 and found else None


def postern_command(base, *arguments):
    binary = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
    result = subprocess.run([binary, *arguments, "--data-dir", base.data], capture_output=True, text=True,
                            env={**os.environ, **base.backend_env, **base.env})
    return result.stdout


def audit_events(base):
    """The server's audit trail, oldest first (`postern audit --json`)."""
    lines = postern_command(base, "audit", "--json").splitlines()
    return [json.loads(line) for line in lines if line.startswith("{")]
