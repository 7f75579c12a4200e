"""The provider sign-in's refusals that test_oidc_owners.py does not make (issue 54, case 3), end to end: real
oidc-provider-mock 0.3.4 servers (PyPI) on loopback and a real `postern serve --profile test` with three providers,
`mock` (the provider as it is), `expired` (a second mock whose tokens, the id_token's `exp` with them, expire five
minutes before they are issued) and `other` (an address whose discovery document names another issuer).

- A swapped callback: two browsers begin a login each; the second presents its own `state` with the first one's
  `code`, then the first presents its callback as it came. Both are refused (see `swapped_callbacks`).
- RFC 9207's `iss` callback parameter that is not the issuer.
- A discovery document whose `issuer` is not the configured one (OpenID Connect Discovery 4.3): the button does not
  leave Postern.
- An expired id_token (the mock's own `exp`, checked here to be past by more than the 60 s skew).

Each: no session, the one page ("Signing in with the provider did not work", or for discovery "misconfigured"),
and the reason on the operator's audit trail (`owner.signin_failed`). The already-covered ones (no state, an unknown or
replayed state, another nonce) are test_oidc_owners.py's. The swapped callbacks (the login transactions' take and
spend) run on SQLite and on PostgreSQL (postern_testkit.postgres), the others on SQLite.

Standard library and oidc-provider-mock (postern_testkit.oidc_mock installs it into .build/client-sdks/ on first run).
"""

import base64
import contextlib
import datetime
import http.server
import json
import os
import sys
import threading
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit.postgres import BACKENDS
from postern_testkit.oidc_mock import CLIENT_ID, CLIENT_SECRET, audit_events, mock_provider, provider_env, set_user
from test_oidc_owners import Browser, refusals

check = Checks()
FAILED = "Signing in with the provider did not work"


@contextlib.contextmanager
def another_issuer(provider):
    """A loopback address whose `/.well-known/openid-configuration` is `provider`'s document as it is: configured as
    an issuer, its discovery names another issuer (`provider`'s own URL), which Postern must refuse whatever else the
    document says. Everything else it answers 404."""

    class Discovery(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path != "/.well-known/openid-configuration":
                self.send_error(404)
                return
            with urllib.request.urlopen(provider + self.path, timeout=10) as answer:
                body = answer.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Discovery)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield "http://127.0.0.1:%d" % server.server_port
    finally:
        server.shutdown()
        server.server_close()


def settings(providers):
    """Postern's settings for `providers` (name: issuer), each configured as provider_env's `mock`."""
    env = {"POSTERN_OIDC_PROVIDERS": ",".join(providers), "POSTERN_OWNER_SIGNUP": "closed"}
    for name, issuer in providers.items():
        one = provider_env(issuer, signup=True)
        del one["POSTERN_OIDC_PROVIDERS"]
        env |= {key.replace("_MOCK_", "_%s_" % name.upper()): value for key, value in one.items()}
    return env


def begin(browser, provider):
    """The sign-in page's button for `provider`: the provider's authorization URL."""
    _, _, html = browser.request("GET", "/owner/sign-in")
    return browser.to_provider(browser.form(html, "/oidc/start") | {"provider": provider})


def with_query(url, **changes):
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query)) | changes
    return parts._replace(query=urllib.parse.urlencode(query)).geturl()


def refused(base, browser, answer, reason, what):
    status, location, body = answer
    check(status == 403 and location is None and FAILED in body and not browser.session(),
          "%s: the one page, no session" % what)
    check(refusals(base)[-1:] == [reason], "%s: %s on the audit trail (%s)" % (what, reason, refusals(base)[-1:]))


def swapped_callbacks(base):
    """Code injection: a browser presents a `code` that was issued to another login, under its own `state`. Postern
    exchanges it with its own transaction's PKCE verifier and expects its own nonce. A provider that enforces PKCE
    (RFC 7636 4.6) refuses that verifier at its token endpoint; oidc-provider-mock 0.3.4 stores no code_challenge and
    so checks no verifier: it hands out the token, and the id_token's nonce (the first login's) refuses it. The first
    browser's callback, as the provider sent it, then finds its code already redeemed: the provider's token endpoint
    refuses it (`invalid_grant`), which is what a refused verifier answers too, and the reason the audit trail gives
    both. (SignInFlowTests answers Postern's exchange with that refusal directly.)"""
    first, second = Browser(base), Browser(base)
    first_callback = first.at_provider(begin(first, "mock"), "alice-sub")
    second_callback = second.at_provider(begin(second, "mock"), "alice-sub")
    first_code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(first_callback).query))["code"]
    refused(base, second, second.request("GET", with_query(second_callback, code=first_code)), "id_token",
            "another login's code under this browser's state, with this login's verifier and nonce")
    refused(base, first, first.request("GET", first_callback), "token_refused",
            "a code the provider refuses at its token endpoint")


def issuer_parameter(base, provider):
    browser = Browser(base)
    callback = browser.at_provider(begin(browser, "mock"), "alice-sub")
    check("iss=" not in callback, "the mock sends no iss itself")
    refused(base, browser, browser.request("GET", with_query(callback, iss=provider + "/other")), "iss_parameter",
            "an iss parameter that is not the issuer")
    # The same login's callback, untouched, is spent: the state worked once, refused or not.
    check(browser.request("GET", callback)[0] == 403 and refusals(base)[-1:] == ["no_transaction"],
          "the refused callback's state is spent")


def discovery_issuer(base):
    browser = Browser(base)
    _, _, html = browser.request("GET", "/owner/sign-in")
    status, location, body = browser.request("POST", "/oidc/start",
                                             browser.form(html, "/oidc/start") | {"provider": "other"})
    check(status == 503 and location is None and "misconfigured on this server" in body
          and "cannot be reached" not in body and not browser.session() and browser.cookie("postern_oidc") is None,
          "a discovery document naming another issuer: misconfigured (not away), no transaction, no session")
    check('<a href="/owner/sign-in" id="back-to-sign-in">' in body,
          "the misconfigured page has a way back to the sign-in page (issue 83 item 11)")
    failure = [e for e in audit_events(base) if e["action"] == "owner.signin_failed" and e["target"] == "oidc:other"][-1:]
    detail = failure[0]["details"].get("detail", "") if failure else ""
    check(failure and failure[0]["details"]["reason"] == "discovery" and "issuer" in detail.lower(),
          "discovery on the audit trail, naming the issuer (%s)" % detail)


def expired_id_token(base, expired):
    # The premise, from the provider itself: its id_token's exp is past by more than Postern's 60 s skew.
    redirect = "http://127.0.0.1:9/callback"
    authorize = expired + "/oauth2/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": redirect, "scope": "openid email",
        "nonce": "n-0123456789", "state": "s"})
    _, location, _ = Browser(base).request("POST", authorize, {"sub": "late-sub"})
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))["code"]
    request = urllib.request.Request(expired + "/oauth2/token", data=urllib.parse.urlencode({
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET}).encode())
    with urllib.request.urlopen(request, timeout=10) as answer:
        payload = json.loads(answer.read())["id_token"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    check(claims["exp"] < claims["iat"] - 60,
          "the expired provider's id_token: exp - iat = %d s" % (claims["exp"] - claims["iat"]))

    browser = Browser(base)
    callback = browser.at_provider(begin(browser, "expired"), "late-sub")
    refused(base, browser, browser.request("GET", callback), "id_token", "an expired id_token")


def main():
    with contextlib.ExitStack() as stack:
        provider = stack.enter_context(mock_provider())
        expired = stack.enter_context(mock_provider(access_token_max_age=datetime.timedelta(minutes=-5)))
        proxy = stack.enter_context(another_issuer(provider))
        set_user(provider, "alice-sub", {"email": "alice@example.com", "email_verified": True})
        set_user(expired, "late-sub", {"email": "late@example.com", "email_verified": True})
        env = settings({"mock": provider, "expired": expired, "other": proxy})
        for backend in BACKENDS:
            check.context = backend + ": "
            with postern(env=env, backend=backend) as base:
                base.env = env
                swapped_callbacks(base)  # the transactions' take and spend: on both backends
                if backend == "sqlite":
                    # Refused by the exchange's checks before anything is read or written but that same spend.
                    issuer_parameter(base, provider)
                    discovery_issuer(base)
                    expired_id_token(base, expired)
                # Nothing above signed anyone in or made anyone.
                check(not [e for e in audit_events(base) if e["action"] in ("owner.signin", "signin.signed_up")],
                      "no refused callback signed anyone in or up")
    check.finish("test_oidc_refusals")


if __name__ == "__main__":
    main()
