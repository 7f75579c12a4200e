"""Owners sign in with an OpenID Connect provider (issue 54): a real provider from PyPI, oidc-provider-mock 0.3.4
(authlib under Flask: discovery, RS256 id_tokens, any claim a test sets, email_verified false included), on loopback
(POSTERN_OIDC_MOCK_ALLOW_PRIVATE_NETWORK=true), against real `postern serve --profile test` processes.

Cases: an owner links the provider from /owner, signs out and back in with the button; a callback without state, a
replayed one and one whose id_token carries another nonce make no session; a provider sign-up (_ALLOW_SIGNUP) makes a
password-less owner whom the password sign-in refuses with the generic error and who cannot unlink their only way in;
email_verified false makes no owner and no link; the pre-hijack case: with open sign-up an attacker registers
victim@ with a password, the victim's provider sign-in with that verified address makes no session on it, and linking
needs the account's password; the Atomic path: an app's /oauth/authorize, the provider's button, consent, code,
token and JMAP; with _LOGOUT on, signing out of a provider's session ends Postern's and then goes to the provider's
end_session_endpoint (client_id, post_logout_redirect_uri), a password session's sign-out does not. The first two
(linking, sign-up, unlink, replays, the pre-hijack case) run on SQLite and on PostgreSQL (postern_testkit.postgres),
the Atomic path and _LOGOUT on SQLite.

Standard library and oidc-provider-mock (postern_testkit.oidc_mock installs it into .build/client-sdks/ on first run).
"""

import base64
import hashlib
import os
import secrets
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from postern_testkit.postgres import BACKENDS
from postern_testkit.oidc_mock import (
    CLIENT_ID, ProviderBrowser, audit_events, mock_provider, moved_on, postern_command, provider_env, set_user,
)

check = Checks()


class Browser(ProviderBrowser):
    """The provider browser on the owner pages."""

    def session(self):
        return self.cookie("postern_owner") is not None

    def sign_in(self, email, password):
        _, _, html = self.request("GET", "/owner/sign-in")
        fields = self.form(html, "/owner/sign-in") | {"email": email, "password": password}
        return self.request("POST", "/owner/sign-in", fields)

    def sign_out(self):
        _, _, html = self.request("GET", "/owner")
        return self.request("POST", "/owner/sign-out", self.form(html, "/owner/sign-out"))

    def button(self, sub, next_path="/owner"):
        """The sign-in page's button, the provider, and the callback's answer (status, Location, body)."""
        _, _, html = self.request("GET", "/owner/sign-in?next=" + urllib.parse.quote(next_path))
        fields = self.form(html, "/oidc/start") | {"provider": "mock"}
        return self.request("GET", self.at_provider(self.to_provider(fields), sub))


def refusals(base):
    """The reasons of the owner.signin_failed events the provider callbacks recorded, oldest first."""
    return [e["details"]["reason"] for e in audit_events(base)
            if e["action"] == "owner.signin_failed" and e.get("details") and e["target"].startswith("oidc")]


def closed_signup(provider, backend):
    set_user(provider, "alice-sub", {"email": "alice@example.com", "email_verified": True})
    set_user(provider, "carol-sub", {"email": "carol@example.com", "email_verified": True})
    set_user(provider, "new-sub", {"email": "newcomer@example.com", "email_verified": True})
    set_user(provider, "unverified-sub", {"email": "nobody@example.com", "email_verified": False})
    set_user(provider, "unverified-alice", {"email": "alice@example.com", "email_verified": False})
    env = provider_env(provider, signup=True) | {"POSTERN_OWNER_SIGNUP": "closed"}
    owners = [("alice@example.com", "alice-password-1"), ("carol@example.com", "carol-password-1")]
    with postern(env=env, owners=owners, backend=backend) as base:
        base.env = env
        # An unlinked identity whose verified email an owner has: no session, that owner's password is asked (the
        # operator made carol, so her email is proven, but without _TRUST_EMAIL an email match only asks).
        carol = Browser(base)
        status, location, _ = carol.button("carol-sub")
        check(status == 303 and location == "/oidc/link" and not carol.session(),
              "an unlinked identity whose email an owner has: no session, the password question")
        _, _, html = carol.request("GET", "/oidc/link")
        status, _, _ = carol.request("POST", "/oidc/link", carol.form(html, "/oidc/link") | {"password": "wrong-pass-1"})
        check(status == 401 and not carol.session(), "a wrong password links nothing")
        status, location, _ = carol.request("POST", "/oidc/link",
                                            carol.form(html, "/oidc/link") | {"password": "carol-password-1"})
        _, _, html = carol.request("GET", "/owner")
        check(status == 303 and carol.session() and 'id="identity-mock"' in html,
              "with carol's password the identity is linked and she is signed in")
        carol_shown = postern_command(base, "owner", "show", "--email", "carol@example.com")
        check("password: set" in carol_shown and "email: proven" in carol_shown
              and "mock  issuer " + provider in carol_shown and "subject carol-sub" in carol_shown,
              "postern owner show lists carol's linked identity")
        shown = postern_command(base, "oidc", "show")
        check(f"redirect URI: {base}/oidc/callback" in shown and "discovery ok" in shown,
              "postern oidc show prints the redirect URI and the provider's discovery state")
        carol.sign_out()
        status, location, _ = carol.button("carol-sub")
        check(status == 303 and location == "/owner" and carol.session(), "then the button alone signs carol in")
        check("never used" in carol_shown and "last used" in postern_command(base, "owner", "show", "--email",
                                                                       "carol@example.com"),
              "linking records no use of the identity; the sign-in does")

        # Linking from /owner: sign in with the password, press "Link Mock ID", come back linked.
        browser = Browser(base)
        status, _, _ = browser.sign_in("alice@example.com", "alice-password-1")
        check(status == 303 and browser.session(), "alice signs in with her password")
        _, _, html = browser.request("GET", "/owner")
        check('id="sign-in-methods"' in html and 'id="link-mock"' in html, "/owner shows Sign-in methods, Link Mock ID")
        callback = browser.at_provider(browser.to_provider(browser.form(html, "/oidc/start", intent="link")),
                                       "alice-sub")
        pre_session = browser.cookie("postern_oidc")
        status, location, _ = browser.request("GET", callback)
        _, _, html = browser.request("GET", "/owner")
        check(status == 303 and location == "/owner" and 'id="identity-mock"' in html
              and "Sign-in provider linked" in html, "alice links the provider from /owner")

        # Signed out, then back in by the button alone; the used callback, with the browser's pre-session cookie put
        # back, opens nothing: the state worked once.
        browser.sign_out()
        check(browser.request("GET", "/owner")[0] == 303, "signed out: /owner sends to sign-in")
        replay = Browser(base)
        replay.jar.set_cookie(pre_session)
        status, _, _ = replay.request("GET", callback)
        check(status == 403 and not replay.session(), "a replayed state with its browser's cookie: refused")
        status, location, _ = browser.button("alice-sub")
        _, _, html = browser.request("GET", "/owner")
        check(status == 303 and location == "/owner" and browser.session() and "alice@example.com" in html,
              "alice signs back in with the button")

        # A callback without state, and one with a state this browser never began.
        stranger = Browser(base)
        status, _, _ = stranger.request("GET", "/oidc/callback?code=abc")
        check(status == 403 and not stranger.session(), "no state: refused, no session")
        status, _, _ = stranger.request("GET", "/oidc/callback?code=abc&state=" + "A" * 43)
        check(status == 403 and not stranger.session(), "an unknown state: refused, no session")

        # The nonce changed on the way to the provider: the id_token then carries another one.
        tamperer = Browser(base)
        _, _, html = tamperer.request("GET", "/owner/sign-in")
        authorize = tamperer.to_provider(tamperer.form(html, "/oidc/start") | {"provider": "mock"})
        parts = urllib.parse.urlsplit(authorize)
        query = [(k, "tampered-nonce-0123456789" if k == "nonce" else v)
                 for k, v in urllib.parse.parse_qsl(parts.query)]
        check(any(k == "nonce" for k, _ in query), "the authorization request carries a nonce")
        callback = tamperer.at_provider(parts._replace(query=urllib.parse.urlencode(query)).geturl(), "alice-sub")
        status, _, _ = tamperer.request("GET", callback)
        check(status == 403 and not tamperer.session(), "an id_token with another nonce: no session")
        check(refusals(base) == ["no_transaction", "malformed_callback", "no_transaction", "id_token"],
              "the audit trail names each refusal: replay, no state, unknown state, the id_token's nonce")

        # A provider sign-up: a new password-less owner, whom the password sign-in refuses as a wrong password.
        newcomer = Browser(base)
        status, location, _ = newcomer.button("new-sub")
        _, _, html = newcomer.request("GET", "/owner")
        check(status == 303 and newcomer.session() and "newcomer@example.com" in html and "Password: none" in html,
              "_ALLOW_SIGNUP with a verified email makes a password-less owner")
        check("newcomer@example.com" in postern_command(base, "owner", "list"), "postern owner list lists them")
        other = Browser(base)
        status, _, body = other.sign_in("newcomer@example.com", "any-password-1")
        check(status == 401 and "Wrong email or password." in body, "the password sign-in refuses them generically")
        fields = newcomer.form(html, "/owner/sign-in-methods/unlink")
        status, location, _ = newcomer.request("POST", "/owner/sign-in-methods/unlink", fields)
        _, _, html = newcomer.request("GET", "/owner")
        check(status == 303 and 'id="identity-mock"' in html and "your only way to sign in" in html,
              "unlinking the only way to sign in is refused")

        # email_verified false: no sign-up, and no link (nor password question) into alice's account.
        stranger = Browser(base)
        status, _, _ = stranger.button("unverified-sub")
        check(status == 403 and not stranger.session()
              and "nobody@example.com" not in postern_command(base, "owner", "list"),
              "email_verified false: no sign-up, no session")
        status, location, _ = stranger.button("unverified-alice")
        check(status == 403 and location is None and not stranger.session(),
              "email_verified false with an owner's address: no link, no password question, no session")

        # Alice unlinks (she has a password): the provider no longer signs her in.
        _, _, html = browser.request("GET", "/owner")
        status, _, _ = browser.request("POST", "/owner/sign-in-methods/unlink",
                                       browser.form(html, "/owner/sign-in-methods/unlink"))
        _, _, html = browser.request("GET", "/owner")
        check(status == 303 and 'id="identity-mock"' not in html and "Sign-in provider unlinked" in html,
              "alice unlinks the provider")
        actions = postern_command(base, "audit", "--owner", "alice@example.com")
        check("signin.linked" in actions and "signin.unlinked" in actions, "link and unlink are on alice's trail")


def pre_hijack(provider, backend):
    set_user(provider, "victim-sub", {"email": "victim@example.com", "email_verified": True})
    env = provider_env(provider, signup=True) | {"POSTERN_OWNER_SIGNUP": "open"}
    with postern(env=env, backend=backend) as base:
        base.env = env
        attacker = Browser(base)
        _, _, html = attacker.request("GET", "/owner/sign-up")
        fields = attacker.form(html, "/owner/sign-up") | {"email": "victim@example.com", "password": "attacker-pass-1"}
        status, _, _ = attacker.request("POST", "/owner/sign-up", fields)
        check(status == 303 and attacker.session(), "the attacker registers victim@example.com with a password")

        victim = Browser(base)
        status, location, _ = victim.button("victim-sub")
        check(status == 303 and location == "/oidc/link" and not victim.session(),
              "the victim's provider sign-in makes no session on the attacker's account")
        check(victim.request("GET", "/owner")[0] == 303, "the victim is not signed in")
        status, _, html = victim.request("GET", "/oidc/link")
        check(status == 200 and "victim@example.com" in html and 'name="password"' in html,
              "linking asks that account's password")
        fields = victim.form(html, "/oidc/link") | {"password": "not-the-password"}
        status, _, body = victim.request("POST", "/oidc/link", fields)
        check(status == 401 and not victim.session() and "nothing was linked" in body,
              "without the password nothing is linked")
        _, _, html = attacker.request("GET", "/owner")
        check('id="identity-mock"' not in html, "the attacker's account has no provider linked")
        status, location, _ = Browser(base).button("victim-sub")
        check(status == 303 and location == "/oidc/link", "the identity stays unlinked: it asks again")
        actions = postern_command(base, "audit", "--owner", "victim@example.com")
        check("signin.link_refused" in actions, "the refused link is on the account's trail")


def atomic_path(provider, backend):
    """Atomic Mail's remote MCP sign-in: an app's /oauth/authorize sends the person to /owner/sign-in, they choose the
    provider there, come back signed in to the authorization request, pick an inbox on the consent page, and the app's
    code becomes a token that opens JMAP. _TRUST_EMAIL with closed sign-up: the operator made the owner, so her email
    is proven and the provider's verified address links and signs her in."""
    set_user(provider, "erin-sub", {"email": "erin@example.com", "email_verified": True})
    env = provider_env(provider, signup=False) | {"POSTERN_OWNER_SIGNUP": "closed",
                                                  "POSTERN_OIDC_MOCK_TRUST_EMAIL": "true"}
    with postern(env=env, owners=[("erin@example.com", "erin-password-1")], backend=backend) as base:
        base.env = env
        callback = "http://127.0.0.1:8765/callback"
        status, _, registered = http(base, "POST", "/oauth/register", {
            "client_name": "atomic", "redirect_uris": [callback], "grant_types": ["authorization_code"],
            "response_types": ["code"], "application_type": "native"})
        client_id = registered.get("client_id") if status == 201 else None
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        jmap = base + "/jmap"
        authorize = "/oauth/authorize?" + urllib.parse.urlencode({
            "response_type": "code", "client_id": client_id, "redirect_uri": callback, "scope": "mail.read mail.send",
            "state": "atomic-state", "code_challenge": challenge, "code_challenge_method": "S256", "resource": jmap})
        erin = Browser(base)
        status, location, _ = erin.request("GET", authorize)
        check(status == 303 and location.startswith("/owner/sign-in"), "authorize: no session, sent to sign in")
        _, _, html = erin.request("GET", location)
        fields = erin.form(html, "/oidc/start") | {"provider": "mock"}
        status, location, _ = erin.request("GET", erin.at_provider(erin.to_provider(fields), "erin-sub"))
        check(status == 303 and location == authorize and erin.session(),
              "the provider's button signs her in and goes back to the authorization request")
        back = urllib.parse.parse_qs(urllib.parse.urlsplit(erin.authorize(authorize, None, None,
                                                                           new_inbox="atomic-inbox")).query)
        check(back.get("state") == ["atomic-state"] and "code" in back, "consent: an inbox made, the code sent back")
        status, _, token = http(base, "POST", "/oauth/token", urllib.parse.urlencode({
            "grant_type": "authorization_code", "code": back.get("code", [""])[0], "redirect_uri": callback,
            "client_id": client_id, "code_verifier": verifier, "resource": jmap}).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"})
        access = token.get("access_token", "") if isinstance(token, dict) else ""
        check(status == 200 and access, "token: the code and verifier make an access token")
        _, _, agents = http(base, "GET", "/api/v1/agents", bearer=access)
        account = (agents.get("agents") or [{}])[0].get("accountId", "") if isinstance(agents, dict) else ""
        status, _, answer = http(base, "POST", "/jmap", {
            "using": ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail"],
            "methodCalls": [["Mailbox/get", {}, "m"]]}, headers={"X-Atomic-Account-Id": account}, bearer=access)
        check(status == 200 and answer["methodResponses"][0][0] == "Mailbox/get",
              "JMAP: the token opens the inbox chosen on the consent page")


def provider_logout(provider, backend):
    set_user(provider, "leaver-sub", {"email": "leaver@example.com", "email_verified": True})
    env = provider_env(provider, signup=True) | {"POSTERN_OWNER_SIGNUP": "closed", "POSTERN_OIDC_MOCK_LOGOUT": "true"}
    with postern(env=env, owners=[("dora@example.com", "dora-password-1")], backend=backend) as base:
        base.env = env
        check(f"post-logout redirect URI {base}/" in postern_command(base, "oidc", "show"),
              "postern oidc show prints the post-logout redirect URI")
        leaver = Browser(base)
        status, _, _ = leaver.button("leaver-sub")
        check(status == 303 and leaver.session(), "a provider sign-up signs the leaver in")
        status, _, body = leaver.sign_out()
        location = moved_on(status, body) or ""
        ended = urllib.parse.urlsplit(location)
        query = dict(urllib.parse.parse_qsl(ended.query))
        check(location.startswith(provider + "/oauth2/end_session?")
              and query == {"client_id": CLIENT_ID, "post_logout_redirect_uri": base + "/"},
              "_LOGOUT: signing out of the provider's session goes to its end_session_endpoint")
        check(not leaver.session() and leaver.request("GET", "/owner")[0] == 303,
              "Postern's session ended first")
        status, _, html = leaver.request("GET", location)
        check(status == 200 and (base + "/") in html, "the provider's end-session page, on its way back to Postern")

        dora = Browser(base)
        dora.sign_in("dora@example.com", "dora-password-1")
        status, location, _ = dora.sign_out()
        check(status == 303 and location == "/owner/sign-in" and not dora.session(),
              "a password session's sign-out stays at Postern")



def main():
    with mock_provider() as provider:
        for backend in BACKENDS:
            check.context = backend + ": "
            # Sign-up, link, unlink, the transactions spent and replayed, the password question: on both backends.
            closed_signup(provider, backend)
            pre_hijack(provider, backend)
            if backend == "sqlite":
                # No SQL of their own beyond those (OAuth's grants and owner_sessions.provider run on both backends
                # in the Swift suites), and a third of the file's time each on PostgreSQL: SQLite only.
                atomic_path(provider, backend)
                provider_logout(provider, backend)
    check.finish("test_oidc_owners")


if __name__ == "__main__":
    main()
