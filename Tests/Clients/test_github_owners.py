"""Owners sign in with GitHub (issue 54, case 6): a `KIND=github` provider against the test kit's fake of GitHub's four
endpoints (postern_testkit.github: authorize, access_token, /user, /user/emails, strict about PKCE, the client secret,
the bearer token, the media type and a User-Agent), on loopback, against a real `postern serve --profile test`.

Cases: a GitHub user whose verified primary address is private (absent from /user) signs up with _ALLOW_SIGNUP, is
known by their numeric id, signs out and back in with the button; an owner links GitHub from /owner and signs in with
it; an unverified primary address makes no owner, no link into the owner who has that address (no password question),
and no session. All of it on SQLite and on PostgreSQL (postern_testkit.postgres).

Standard library only.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import postern
from postern_testkit.github import FakeGitHub
from postern_testkit.postgres import BACKENDS
from test_oidc_owners import Browser, check, postern_command, refusals

CLIENT_ID, CLIENT_SECRET = "Iv1.postern-test", "github-test-secret"


def through_github(browser, login, fields):
    """Posts a button's form to /oidc/start, signs in at the fake as `login`, and follows the callback: its answer."""
    authorize = browser.to_provider(fields)
    check(authorize.startswith(browser.github.web_url + "/login/oauth/authorize?"), "the button leads to GitHub")
    status, location, body = browser.request("POST", authorize, {"user": login})
    assert status == 302 and location, f"fake GitHub authorize: {status} {body[:300]}"
    return browser.request("GET", location)


def button(browser, login):
    _, _, html = browser.request("GET", "/owner/sign-in?next=/owner")
    return through_github(browser, login, browser.form(html, "/oidc/start") | {"provider": "github"})


def signed_in_with_github(github, env, backend):
    """Every case, on one server of `backend`."""
    calls = len(github.api_calls)
    with postern(env=env, owners=[("alice@example.com", "alice-password-1")], backend=backend) as base:
        base.env = env

        def browser():
            made = Browser(base)
            made.github = github
            return made

        # A private, verified primary address: a password-less owner, keyed on the numeric id.
        octo = browser()
        _, _, html = octo.request("GET", "/owner/sign-in")
        check('value="github"' in html and "GitHub" in html, "/owner/sign-in shows the GitHub button")
        status, location, _ = button(octo, "octocat")
        _, _, html = octo.request("GET", "/owner")
        check(status == 303 and location == "/owner" and octo.session() and "octo@example.com" in html
              and "Password: none" in html, "a verified private primary address signs up a password-less owner")
        shown = postern_command(base, "owner", "show", "--email", "octo@example.com")
        check(f"github  issuer {github.web_url}" in shown and "subject 583231" in shown,
              "the identity is GitHub's web URL and the numeric user id")
        check("noreply" not in postern_command(base, "owner", "list"), "the non-primary address is not taken")
        octo.sign_out()
        check(octo.request("GET", "/owner")[0] == 303, "signed out")
        status, location, _ = button(octo, "octocat")
        check(status == 303 and location == "/owner" and octo.session(), "octocat signs back in with the button")

        # Alice links GitHub from /owner, then signs in with it alone.
        alice = browser()
        status, _, _ = alice.sign_in("alice@example.com", "alice-password-1")
        _, _, html = alice.request("GET", "/owner")
        check(status == 303 and 'id="link-github"' in html, "alice signs in; /owner offers Link GitHub")
        status, location, _ = through_github(alice, "alice-gh", alice.form(html, "/oidc/start", intent="link"))
        _, _, html = alice.request("GET", "/owner")
        check(status == 303 and location == "/owner" and 'id="identity-github"' in html,
              "alice links her GitHub account")
        alice.sign_out()
        status, location, _ = button(alice, "alice-gh")
        check(status == 303 and location == "/owner" and alice.session(), "alice signs in with GitHub")

        # An unverified primary address: nothing is made, linked or asked, and no session.
        stranger = browser()
        status, location, _ = button(stranger, "mallory")
        check(status == 403 and location is None and not stranger.session(),
              "an unverified primary with alice's address: no link, no password question, no session")
        status, location, _ = button(stranger, "newbie")
        check(status == 403 and not stranger.session() and "newbie" not in postern_command(base, "owner", "list"),
              "an unverified primary (another address verified) signs nobody up")
        shown = postern_command(base, "owner", "show", "--email", "alice@example.com")
        check("subject 1001" in shown and "subject 666" not in shown, "alice has only her own GitHub linked")
        check(refusals(base) == ["email_not_verified", "email_not_verified"],
              "the audit trail names both refusals")

        check(len(github.api_calls) - calls == 12 and all(
            headers.get("user-agent") and headers.get("accept") == "application/vnd.github+json"
            and headers.get("authorization", "").startswith("Bearer gho_") for _, headers in github.api_calls[calls:]),
            "every API call carried the bearer token, GitHub's media type and a User-Agent")


def main():
    with FakeGitHub(CLIENT_ID, CLIENT_SECRET) as github:
        # (email, primary, verified): octocat's primary address is private and verified; a noreply one is verified
        # but not primary, and is never taken for it.
        github.add_user("octocat", 583231, [("583231+octocat@users.noreply.github.com", False, True),
                                            ("octo@example.com", True, True)], name="The Octocat")
        github.add_user("alice-gh", 1001, [("alice@example.com", True, True)])
        github.add_user("mallory", 666, [("alice@example.com", True, False)])
        github.add_user("newbie", 777, [("newbie@example.com", True, False), ("newbie@work.example", False, True)])
        env = {
            "POSTERN_OIDC_PROVIDERS": "github", "POSTERN_OIDC_GITHUB_KIND": "github",
            "POSTERN_OIDC_GITHUB_CLIENT_ID": CLIENT_ID, "POSTERN_OIDC_GITHUB_CLIENT_SECRET": CLIENT_SECRET,
            "POSTERN_OIDC_GITHUB_GITHUB_WEB_URL": github.web_url, "POSTERN_OIDC_GITHUB_GITHUB_API_URL": github.api_url,
            "POSTERN_OIDC_GITHUB_ALLOW_PRIVATE_NETWORK": "true", "POSTERN_OIDC_GITHUB_ALLOW_SIGNUP": "true",
            "POSTERN_OIDC_GITHUB_SURFACES": "owners", "POSTERN_OWNER_SIGNUP": "closed",
        }
        for backend in BACKENDS:
            check.context = backend + ": "
            signed_in_with_github(github, env, backend)
    check.finish("test_github_owners")


if __name__ == "__main__":
    main()
