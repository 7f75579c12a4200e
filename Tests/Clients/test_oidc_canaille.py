"""Owners and Pro users sign in with Canaille (issue 54): a production OpenID Connect provider, run by pytest-iam 0.3.0
(Canaille 0.3.6, from PyPI, postern_testkit.canaille) on loopback, which requires PKCE and a nonce on every
authorization request; Postern is registered there as a client over HTTP (dynamic client registration, RFC 7591, the
redirect URI `<public URL>/oidc/callback`), and the person's walk at Canaille is its own login form (user name, then
password) and consent form, over HTTP, against a real `postern serve --profile test` process.

Cases: an owner made by the operator (closed sign-up, so her email is proven) links Canaille from /owner, signs out and
back in by the button alone (then a login whose stored code_verifier was changed is refused by Canaille's token
endpoint, and Postern opens nothing); before the link, Canaille's sign-in made no session and asked nothing, since Canaille
sends no `email_verified` claim: its address is unverified to Postern. A Pro user made by the operator links Canaille
from the Pro dashboard and signs in with the button alone (the dashboard reachable); with `_ALLOW_SIGNUP`, a person
unknown to Postern signing in with Canaille is not made a Pro user (no verified email), and the refusal is on the
audit trail. Every case runs on SQLite and on PostgreSQL (postern_testkit.postgres), each server a client of its own
at the one Canaille.

Standard library and pytest-iam (postern_testkit.canaille installs it into .build/client-sdks/ on first run).
"""

import hashlib
import os
import sqlite3
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, free_port, postern
from postern_testkit.canaille import canaille_provider
from postern_testkit.oidc_mock import ProviderBrowser, audit_events, postern_command
from postern_testkit.postgres import BACKENDS, psql

check = Checks()


class Browser(ProviderBrowser):
    """One person's browser, with Postern's and Canaille's cookies."""

    def __init__(self, base, canaille):
        super().__init__(base)
        self.canaille = canaille

    def owner_session(self):
        return self.cookie("postern_owner") is not None

    def inbox_session(self):
        return self.cookie("postern_inbox") is not None

    def at_canaille(self, start_fields, start_path, user):
        """Posts a Canaille button's form at Postern, walks Canaille as `user` (name, password) and answers the
        callback: (status, Location, body)."""
        callback = self.canaille.sign_in(self, self.to_provider(start_fields, start_path), *user)
        assert callback.startswith(self.base + "/oidc/callback?code="), f"Canaille answered {callback[:200]}"
        return self.request("GET", callback)


def setup(canaille):
    """Postern on a port chosen first, registered at Canaille for `<public URL>/oidc/callback` before it starts."""
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    client_id, client_secret = canaille.register(public + "/oidc/callback")
    check(bool(client_id and client_secret), "Canaille registers Postern as a confidential client (RFC 7591)")
    return public, {
        "POSTERN_PORT": str(port), "POSTERN_OWNER_SIGNUP": "closed",
        "POSTERN_OIDC_PROVIDERS": "canaille", "POSTERN_OIDC_CANAILLE_ISSUER": canaille.issuer,
        "POSTERN_OIDC_CANAILLE_CLIENT_ID": client_id, "POSTERN_OIDC_CANAILLE_CLIENT_SECRET": client_secret,
        "POSTERN_OIDC_CANAILLE_DISPLAY_NAME": "Canaille", "POSTERN_OIDC_CANAILLE_ALLOW_PRIVATE_NETWORK": "true",
        "POSTERN_OIDC_CANAILLE_ALLOW_SIGNUP": "true",
    }


def enforced(canaille, base):
    """What makes Canaille the proof of Postern's PKCE and nonce: the authorization request Postern sends, with its
    code_challenge or its nonce taken out, is refused by Canaille (an error sent back, no code)."""
    browser = Browser(base, canaille)
    _, _, html = browser.request("GET", "/owner/sign-in")
    authorize = browser.to_provider(browser.form(html, "/oidc/start") | {"provider": "canaille"})
    parts = urllib.parse.urlsplit(authorize)
    query = dict(urllib.parse.parse_qsl(parts.query))
    check(query.get("code_challenge_method") == "S256" and query.get("nonce") and query.get("state"),
          "Postern's authorization request carries PKCE S256, a nonce and a state")
    for dropped in ("code_challenge", "nonce"):
        kept = urllib.parse.urlencode([(k, v) for k, v in query.items() if k != dropped])
        callback = canaille.sign_in(browser, parts._replace(query=kept).geturl(), "alice", "alice-canaille-1")
        answer = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
        check(answer.get("error") == "invalid_request" and "code" not in answer,
              f"Canaille refuses that request without its {dropped}: {answer.get('error_description', '')[:60]}")


def owners(canaille, base):
    alice = ("alice", "alice-canaille-1")
    browser = Browser(base, canaille)
    _, _, html = browser.request("GET", "/owner/sign-in")
    status, location, _ = browser.at_canaille(browser.form(html, "/oidc/start") | {"provider": "canaille"},
                                              "/oidc/start", alice)
    check(status == 403 and location is None and not browser.owner_session(),
          "unlinked, Canaille's address (no email_verified) opens nothing and asks nothing")

    status, _, _ = browser.request("POST", "/owner/sign-in", browser.form(
        browser.request("GET", "/owner/sign-in")[2], "/owner/sign-in") | {
            "email": "alice@example.com", "password": "alice-postern-1"})
    check(status == 303 and browser.owner_session(), "alice signs in with her Postern password")
    _, _, html = browser.request("GET", "/owner")
    check('id="link-canaille"' in html, "/owner offers Link Canaille")
    status, location, _ = browser.at_canaille(browser.form(html, "/oidc/start", intent="link"), "/oidc/start", alice)
    _, _, html = browser.request("GET", "/owner")
    check(status == 303 and location == "/owner" and 'id="identity-canaille"' in html,
          "alice links Canaille from /owner (login form, consent, PKCE and nonce checked by Canaille)")
    check(f"issuer {canaille.issuer}  subject alice" in postern_command(base, "owner", "show", "--email",
                                                                       "alice@example.com"),
          "postern owner show lists the Canaille identity (issuer, subject)")

    _, _, html = browser.request("GET", "/owner")
    browser.request("POST", "/owner/sign-out", browser.form(html, "/owner/sign-out"))
    check(not browser.owner_session() and browser.request("GET", "/owner")[0] == 303, "alice signs out")
    _, _, html = browser.request("GET", "/owner/sign-in")
    status, location, _ = browser.at_canaille(browser.form(html, "/oidc/start") | {"provider": "canaille"},
                                              "/oidc/start", alice)
    _, _, html = browser.request("GET", "/owner")
    check(status == 303 and location == "/owner" and browser.owner_session() and "alice@example.com" in html,
          "alice signs back in with the Canaille button alone")


def refused_verifier(canaille, base):
    """A code_verifier Canaille refuses: the login transaction's stored verifier is changed in Postern's database after
    the authorization request went out (with the challenge of the right one), so the token request carries one that
    does not match; Canaille refuses the code (RFC 7636 section 4.6) and Postern opens nothing."""
    alice = ("alice", "alice-canaille-1")
    browser = Browser(base, canaille)
    _, _, html = browser.request("GET", "/owner/sign-in")
    authorize = browser.to_provider(browser.form(html, "/oidc/start") | {"provider": "canaille"}, "/oidc/start")
    # This browser's transaction: the table keeps the SHA-256 of its pre-session cookie.
    began = hashlib.sha256(browser.cookie("postern_oidc").value.encode()).hexdigest()
    verifier = "x" * 43 + "-another-verifier"
    if base.backend == "postgres":
        changed = len(psql(f"UPDATE signin_transactions SET code_verifier = '{verifier}' "
                           f"WHERE browser_digest = decode('{began}', 'hex') RETURNING 1",
                           base.backend_env["POSTERN_DATABASE_URL"]))
    else:
        with sqlite3.connect(os.path.join(base.data, "postern.sqlite3")) as database:
            changed = database.execute("UPDATE signin_transactions SET code_verifier = ? WHERE browser_digest = ?",
                                       (verifier, bytes.fromhex(began))).rowcount
        database.close()
    check(changed == 1, "the login transaction's verifier is changed in the database")
    callback = canaille.sign_in(browser, authorize, *alice)
    status, _, _ = browser.request("GET", callback)
    check(status == 403 and not browser.owner_session(),
          "a code_verifier Canaille refuses: the generic refusal, no session")


def pro_users(canaille, base):
    newcomer = Browser(base, canaille)
    _, _, html = newcomer.request("GET", "/inbox/sign-in")
    status, _, _ = newcomer.at_canaille(newcomer.form(html, "/inbox/sign-in/provider") | {"provider": "canaille"},
                                        "/inbox/sign-in/provider", ("newcomer", "newcomer-canaille-1"))
    check(status == 403 and not newcomer.inbox_session()
          and "newcomer@example.com" not in postern_command(base, "pro", "list"),
          "_ALLOW_SIGNUP: Canaille's unverified address makes no Pro user and no session")
    check(any(e["action"] == "pro.signin_failed" for e in audit_events(base)),
          "the refused sign-up is on the audit trail (pro.signin_failed)")

    bob = Browser(base, canaille)
    _, _, html = bob.request("GET", "/inbox/sign-in")
    status, _, _ = bob.request("POST", "/inbox/sign-in", bob.form(html, "/inbox/sign-in") | {
        "kind": "pro", "email": "bob@example.com", "password": "bob-postern-1"})
    check(status == 303 and bob.inbox_session(), "bob signs in to the web inbox with his Pro password")
    html = bob.request("GET", "/inbox/dashboard")[2]
    status, _, _ = bob.at_canaille(bob.form(html, "/inbox/sign-in-methods/link", provider="canaille"),
                                   "/inbox/sign-in-methods/link", ("bob", "bob-canaille-1"))
    html = bob.request("GET", "/inbox/dashboard")[2]
    check(status == 200 and 'id="identity-canaille"' in html, "bob links Canaille from the Pro dashboard")

    again = Browser(base, canaille)
    _, _, html = again.request("GET", "/inbox/sign-in")
    status, _, body = again.at_canaille(again.form(html, "/inbox/sign-in/provider") | {"provider": "canaille"},
                                        "/inbox/sign-in/provider", ("bob", "bob-canaille-1"))
    status_dashboard, _, html = again.request("GET", "/inbox/dashboard")
    check(status == 200 and "url=/inbox" in body and again.inbox_session() and status_dashboard == 200
          and 'id="identity-canaille"' in html and "Password: set" in html,
          "bob signs in with the Canaille button alone; the dashboard is his (his password, Canaille linked)")


def every_case(canaille, backend):
    """Every case, on one server of `backend`, registered at Canaille as a client of its own."""
    public, env = setup(canaille)
    with postern(env=env, owners=[("alice@example.com", "alice-postern-1")],
                 pro_users=[("bob@example.com", "bob-postern-1")], backend=backend) as base:
        base.env = env
        check(base == public, "Postern listens at the URL registered at Canaille")
        check(public + "/oidc/callback" in postern_command(base, "oidc", "show"),
              "postern oidc show prints the redirect URI registered at Canaille")
        enforced(canaille, base)
        owners(canaille, base)
        pro_users(canaille, base)
        refused_verifier(canaille, base)
        check([(e["action"], (e.get("details") or {}).get("reason")) for e in audit_events(base)
               if e["action"].endswith("signin_failed")]
              == [("owner.signin_failed", "email_not_verified"), ("pro.signin_failed", "email_not_verified"),
                  ("owner.signin_failed", "token_refused")],
              "the audit trail names the refusals: email_not_verified twice, then token_refused")


def main():
    with canaille_provider() as canaille:
        canaille.add_user("alice", "alice-canaille-1", "alice@example.com")
        canaille.add_user("bob", "bob-canaille-1", "bob@example.com")
        canaille.add_user("newcomer", "newcomer-canaille-1", "newcomer@example.com")
        for backend in BACKENDS:
            check.context = backend + ": "
            every_case(canaille, backend)
    check.finish("test_oidc_canaille")


if __name__ == "__main__":
    main()
