"""Pro users sign in with an OpenID Connect provider (issue 54): oidc-provider-mock 0.3.4 from PyPI on loopback (the
owners' provider, postern_testkit.oidc_mock), against real `postern serve --profile test` processes, and Mail.td's
Python SDK 2.0.0 (unmodified, through mailtd_driver.py).

Cases: a Pro user's first provider sign-in with _ALLOW_SIGNUP makes a password-less Pro user, who makes a tm_pro_
token in the Pro dashboard and uses Mail.td's SDK with it; POST /api/user/login for that user answers the generic 401
of a wrong password; unlinking their only way in is refused; the button alone signs them in again; `postern pro list`
names the identity; with _LOGOUT on, signing out of their session ends it at Postern, then moves on to the
provider's end_session_endpoint (whose page leads back to Postern), where a password session signs out at Postern
only. The pre-hijack case: a Pro user registered by password with the victim's address; the victim's
provider sign-in with that verified address makes no session on it, asks that account's password (a wrong one links
nothing), and email_verified false neither asks nor makes anybody. All of it on SQLite and on PostgreSQL
(postern_testkit.postgres).

Standard library, oidc-provider-mock and mailtd 2.0.0 (installed into .build/client-sdks/ on first run).
"""

import json
import os
import re
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, pip_target, postern
from postern_testkit.postgres import BACKENDS
from postern_testkit.oidc_mock import (
    CLIENT_ID, ProviderBrowser, audit_events, mock_provider, moved_on, postern_command, provider_env, set_user,
)

SDK_VERSION = "2.0.0"
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mailtd_driver.py")
check = Checks()


class ProBrowser(ProviderBrowser):
    """The provider browser on the web inbox's Pro side."""

    def session(self):
        return self.cookie("postern_inbox") is not None

    def button(self, sub):
        """The Pro sign-in page's button, the provider, and the callback's answer (status, Location, body)."""
        _, _, html = self.request("GET", "/inbox/sign-in")
        fields = self.form(html, "/inbox/sign-in/provider") | {"provider": "mock"}
        return self.request("GET", self.at_provider(self.to_provider(fields, "/inbox/sign-in/provider"), sub))

    def dashboard(self):
        return self.request("GET", "/inbox/dashboard")[2]

    def sign_in(self, email, password):
        _, _, html = self.request("GET", "/inbox/sign-in")
        fields = self.form(html, "/inbox/sign-in") | {"kind": "pro", "email": email, "password": password}
        return self.request("POST", "/inbox/sign-in", fields)

    def sign_out(self):
        return self.request("POST", "/inbox/sign-out", self.form(self.dashboard(), "/inbox/sign-out"))


def signed_in(answer):
    """A provider sign-in's session page: 200, moving on to /inbox by itself (the session cookie is SameSite=Strict,
    which a 303 ending the provider's cross-site redirect would not carry)."""
    status, _, body = answer
    return status == 200 and 'http-equiv="refresh"' in body and "url=/inbox" in body


def sdk_steps(base, steps):
    """Runs (step, args) pairs through Mail.td's SDK in one driver process; their results."""
    path = pip_target("mailtd-" + SDK_VERSION, "mailtd==" + SDK_VERSION, "mailtd")
    lines = "".join(json.dumps({"base": str(base), "step": step, "args": args}) + "\n" for step, args in steps)
    done = subprocess.run([sys.executable, DRIVER], input=lines, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=path))
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(steps) and all("result" in a for a in answers), done.stdout[-2000:] + done.stderr
    return [a["result"] for a in answers]


def sign_up_and_sdk(provider, backend):
    set_user(provider, "new-sub", {"email": "newcomer@example.com", "email_verified": True})
    set_user(provider, "victim-sub", {"email": "victim@example.com", "email_verified": True})
    set_user(provider, "unverified-victim", {"email": "victim@example.com", "email_verified": False})
    env = provider_env(provider, signup=True, surfaces="pro") | {"POSTERN_OIDC_MOCK_LOGOUT": "true"}
    with postern(env=env, pro_users=[("victim@example.com", "squatter-pass-1"),
                                     ("dora@example.com", "dora-password-1")], backend=backend) as base:
        base.env = env
        # The first sign-in makes a password-less Pro user and signs them in.
        newcomer = ProBrowser(base)
        check(signed_in(newcomer.button("new-sub")) and newcomer.session(),
              "_ALLOW_SIGNUP with a verified email makes a Pro user and signs them in")
        html = newcomer.dashboard()
        check('id="sign-in-methods"' in html and "Password: none" in html and 'id="identity-mock"' in html,
              "the dashboard's Sign-in methods: no password, the provider linked")

        # A tm_pro_ token made in the dashboard, used through Mail.td's SDK.
        fields = newcomer.form(html, "/inbox/dashboard/tokens") | {"name": "sdk"}
        status, _, _ = newcomer.request("POST", "/inbox/dashboard/tokens", fields)
        shown = re.search(r"tm_pro_[A-Za-z0-9_-]+", newcomer.dashboard())
        check(status == 303 and shown is not None, "the dashboard makes a tm_pro_ token and shows it once")
        token = shown.group(0) if shown else ""
        me, tokens, accounts = sdk_steps(base, [("me", {"token": token}), ("token_list", {"token": token}),
                                                ("pro_accounts", {"token": token})])
        check(me.get("email") == "newcomer@example.com", "mailtd 2.0.0: user.get_me with the token")
        check(any(t.get("name") == "sdk" for t in tokens) and accounts == [],
              "mailtd 2.0.0: tokens.list and user.list_accounts with the token")

        # POST /api/user/login: the same 401 as a wrong password.
        passwordless = http(base, "POST", "/api/user/login", {"email": "newcomer@example.com", "password": "guess-1234"})
        wrong = http(base, "POST", "/api/user/login", {"email": "victim@example.com", "password": "guess-1234"})
        check(passwordless[0] == wrong[0] == 401 and passwordless[2] == wrong[2] == {"error": "invalid_credentials"},
              "POST /api/user/login answers the password-less user the generic 401 of a wrong password")

        # Their only way in stays.
        fields = newcomer.form(newcomer.dashboard(), "/inbox/sign-in-methods/unlink")
        status, _, _ = newcomer.request("POST", "/inbox/sign-in-methods/unlink", fields)
        html = newcomer.dashboard()
        check(status == 303 and "your only way to sign in" in html and 'id="identity-mock"' in html,
              "unlinking the only way to sign in is refused")
        again = ProBrowser(base)
        check(signed_in(again.button("new-sub")) and "newcomer@example.com" in again.dashboard(),
              "the button alone signs them in again")
        listed = postern_command(base, "pro", "list")
        check("newcomer@example.com" in listed and "password: none" in listed and "subject new-sub" in listed,
              "postern pro list names the password-less user and their identity")

        provider_logout(base, provider, again)

        # Pre-hijack: the victim's verified address is a Pro user's already (registered by password): no session.
        victim = ProBrowser(base)
        status, location, _ = victim.button("victim-sub")
        check(status == 303 and location == "/inbox/sign-in/provider-link" and not victim.session(),
              "the victim's provider sign-in makes no session on the account with that address")
        status, _, html = victim.request("GET", "/inbox/sign-in/provider-link")
        check(status == 200 and "victim@example.com" in html and 'name="password"' in html,
              "linking asks that account's password")
        fields = victim.form(html, "/inbox/sign-in/provider-link") | {"password": "not-the-password"}
        status, _, body = victim.request("POST", "/inbox/sign-in/provider-link", fields)
        check(status == 401 and not victim.session() and "nothing was linked" in body,
              "without the password nothing is linked")
        check("subject victim-sub" not in postern_command(base, "pro", "list"),
              "the account with the address has no identity linked")
        status, location, _ = ProBrowser(base).button("unverified-victim")
        check(status == 403 and location is None, "email_verified false: no question, no session")
        # Whoever holds the account's password links it (and is signed in).
        fields = victim.form(html, "/inbox/sign-in/provider-link") | {"password": "squatter-pass-1"}
        check(signed_in(victim.request("POST", "/inbox/sign-in/provider-link", fields)) and victim.session(),
              "with the account's password the identity is linked and signed in")

        actions = [(e["action"], e["actor_id"] if "actor_id" in e else "") for e in audit_events(base)]
        names = [a for a, _ in actions]
        check("signin.signed_up" in names and "signin.link_refused" in names and "signin.linked" in names
              and "pro.signin" in names and "pro.signin_failed" in names,
              "sign-up, refused link, link, sign-ins and the refusal are on the audit trail")


def provider_logout(base, provider, newcomer):
    """_LOGOUT: the provider's session signs out at Postern first, then at the provider; a password one at Postern."""
    cookie = newcomer.cookie("postern_inbox").value
    check(http(base, "GET", "/inbox/dashboard", headers={"Cookie": "postern_inbox=" + cookie})[0] == 200,
          "the provider's Pro session opens the dashboard")
    status, _, body = newcomer.sign_out()
    location = moved_on(status, body) or ""
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    check(location.startswith(provider + "/oauth2/end_session?")
          and query == {"client_id": CLIENT_ID, "post_logout_redirect_uri": base + "/"},
          "_LOGOUT: signing out of a provider's Pro session goes on to its end_session_endpoint")
    check(not newcomer.session()
          and http(base, "GET", "/inbox/dashboard", headers={"Cookie": "postern_inbox=" + cookie})[0] == 404,
          "the Pro session ended at Postern first: its cookie dropped, and that cookie no longer opens the dashboard")
    status, _, html = newcomer.request("GET", location)
    check(status == 200 and (base + "/") in html, "the provider's end-session page, on its way back to Postern")

    dora = ProBrowser(base)
    status, _, _ = dora.sign_in("dora@example.com", "dora-password-1")
    check(status == 303 and dora.session(), "a Pro user signs in with their password")
    status, location, _ = dora.sign_out()
    check(status == 303 and location == "/inbox/sign-in" and not dora.session(),
          "a password session's sign-out stays at Postern")


def main():
    with mock_provider() as provider:
        for backend in BACKENDS:
            check.context = backend + ": "
            sign_up_and_sdk(provider, backend)
    check.finish("test_oidc_pro")


if __name__ == "__main__":
    main()
