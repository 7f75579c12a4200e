"""Owners' passkeys over HTTP (issue 56), against a real `postern serve --profile test` whose public URL is
https://passkeys.localhost (the RP ID), with the test kit's software authenticator (cryptography + cbor2): a passkey
of each algorithm (ES256, EdDSA, RS256) registered from /owner signs its owner in with no email typed; and what no
browser sends is refused with the same generic page and no session: a wrong origin, a wrong RP ID hash, UV clear, a
replayed or expired challenge, another person's challenge, a COSE key whose alg is not its type's, truncated and
over-deep CBOR, an unknown credential id, another user's handle. A Pro user registers a passkey from the Pro
dashboard and signs in to /inbox with it alone; a forged answer and an owner's passkey are refused there alike; then
they remove their password, and POST /api/user/login and the password form refuse them."""

import http.client
import json
import os
import re
import sqlite3
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit import http as json_request  # the module http (http.client) is this file's too
from postern_testkit.server import install_packages

install_packages("webauthn", ["cbor2==5.6.5"], ["cbor2"])
from postern_testkit.webauthn import UP, UV, SoftwareAuthenticator, deep_cbor  # noqa: E402

check = Checks()
PUBLIC = "https://passkeys.localhost"
RP_ID = "passkeys.localhost"
REFUSED = "That passkey could not be used"
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


class Browser:
    """Cookies by name (the public URL is https: the jar of the standard library would keep `Secure` ones back over
    plain http to the loopback listener), one request at a time, no redirect followed."""

    def __init__(self, base):
        parsed = urllib.parse.urlsplit(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.base = base
        self.cookies = {}

    def send(self, method, path, fields=None):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if fields is not None:
            body = urllib.parse.urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                cookie = rest.split(";", 1)[0]
                if not cookie or "Max-Age=0" in value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = cookie
        connection.close()
        return response.status, dict(response.getheaders()), text

    def csrf(self, path):
        status, _, text = self.send("GET", path)
        found = CSRF.search(text)
        assert found, f"no CSRF token at {path} ({status})"
        return found.group(1)

    def sign_in_password(self, email):
        token = self.csrf("/owner/sign-in")
        return self.send("POST", "/owner/sign-in", {"csrf_token": token, "email": email, "password": PASSWORD,
                                                    "next": "/owner"})[0]

    def sign_out(self):
        self.send("POST", "/owner/sign-out", {"csrf_token": self.csrf("/owner")})

    def registration_options(self):
        status, _, text = self.send("POST", "/owner/passkeys/options", {"csrf_token": self.csrf("/owner")})
        assert status == 200, status
        return json.loads(text)

    def register(self, credential, name):
        """The flash code the registration's 303 carries."""
        self.send("POST", "/owner/passkeys", {"csrf_token": self.csrf("/owner"), "name": name,
                                              "credential": json.dumps(credential)})
        return self.cookies.get("postern_flash")

    def sign_in_options(self):
        token = self.csrf("/owner/sign-in")
        status, _, text = self.send("POST", "/owner/sign-in/passkey/options", {"csrf_token": token})
        assert status == 200, status
        return token, json.loads(text)

    def sign_in(self, token, credential):
        body = credential if isinstance(credential, str) else json.dumps(credential)
        return self.send("POST", "/owner/sign-in/passkey", {"csrf_token": token, "credential": body, "next": "/owner"})

    def signed_in(self):
        return self.send("GET", "/owner")[0] == 200


PASSWORD = "correct horse battery"


def last_refusal(base, action="owner.signin_failed"):
    """The reason of the newest refused sign-in on the audit trail (never shown to the browser)."""
    with sqlite3.connect(os.path.join(base.data, "postern.sqlite3"), timeout=30) as database:
        row = database.execute("SELECT details FROM audit_events WHERE action = ? ORDER BY id DESC LIMIT 1",
                               (action,)).fetchone()
    return json.loads(row[0])["reason"] if row else None


def expect_refused(browser, answer, what, reason):
    status, headers, text = answer
    check(status == 401 and REFUSED in text and "postern_owner" not in browser.cookies and not browser.signed_in(),
          f"{what}: the generic refusal (401), no session")
    check(last_refusal(browser.base) == reason, f"{what}: audited as {reason}")


def pro_passkeys(base, owners_key):
    """A Pro user's passkey, registered from the Pro dashboard, signs them in to /inbox with nothing typed; a forged
    answer and an owner's passkey get the same refusal there, and no session."""
    browser = Browser(base)
    token = browser.csrf("/inbox/sign-in")
    status = browser.send("POST", "/inbox/sign-in", {"csrf_token": token, "kind": "pro", "email": "pro@example.com",
                                                     "password": PASSWORD})[0]
    check(status == 303 and "postern_inbox" in browser.cookies, "Pro: signs in with the password")
    check('id="sign-in-methods"' in browser.send("GET", "/inbox/dashboard")[2],
          "Pro: the dashboard has Sign-in methods")
    status, _, text = browser.send("POST", "/inbox/passkeys/options", {"csrf_token": browser.csrf("/inbox/dashboard")})
    options = json.loads(text) if status == 200 else {}
    check(options.get("rp", {}).get("id") == RP_ID, "Pro: creation options name the RP ID")
    key = SoftwareAuthenticator("es256", RP_ID, PUBLIC)
    status, headers, _ = browser.send("POST", "/inbox/passkeys", {
        "csrf_token": browser.csrf("/inbox/dashboard"), "name": "Pro laptop",
        "credential": json.dumps(key.register(options))})
    page = browser.send("GET", "/inbox/dashboard")[2]
    check(status == 303 and "Passkey added." in page and "Pro laptop" in page,
          "Pro: the passkey is registered and listed")
    browser.send("POST", "/inbox/sign-out", {"csrf_token": browser.csrf("/inbox")})
    check("postern_inbox" not in browser.cookies, "Pro: signed out")

    def attempt(credential):
        token = browser.csrf("/inbox/sign-in")
        status, _, text = browser.send("POST", "/inbox/sign-in/passkey/options", {"csrf_token": token})
        request = json.loads(text) if status == 200 else {"challenge": ""}
        return browser.send("POST", "/inbox/sign-in/passkey",
                            {"csrf_token": token, "credential": json.dumps(credential(request))})

    for what, credential, reason in [
        ("a wrong origin", lambda request: key.sign_in(request, origin="https://passkeys.example"),
         "verification.origin"),
        ("an owner's passkey", lambda request: owners_key.sign_in(request), "unknown_credential"),
    ]:
        status, _, text = attempt(credential)
        check(status == 401 and REFUSED in text and "postern_inbox" not in browser.cookies
              and browser.send("GET", "/inbox")[0] == 303, f"Pro, {what}: the generic refusal (401), no session")
        check(last_refusal(base, "pro.signin_failed") == reason, f"Pro, {what}: audited as {reason}")
    status, headers, _ = attempt(key.sign_in)
    home = browser.send("GET", "/inbox")
    check(status == 303 and "postern_inbox" in browser.cookies and home[0] == 200 and "pro<wbr>@example" in home[2],
          "Pro: the passkey alone signs the Pro user in to /inbox")

    # Holding a passkey, they remove their password (typed once more): then only the passkey signs them in, and
    # POST /api/user/login answers them as it answers an email nobody has.
    status, headers, _ = browser.send("POST", "/inbox/password/remove", {
        "csrf_token": browser.csrf("/inbox/dashboard"), "password": PASSWORD})
    page = browser.send("GET", "/inbox/dashboard")[2]
    check(status == 303 and "Password removed" in page and "Password: none" in page,
          "Pro: the password is removed from Sign-in methods, the session stays")

    def api_login(email):
        status, _, body = json_request(base, "POST", "/api/user/login", {"email": email, "password": PASSWORD})
        return status, body

    login, nobody = api_login("pro@example.com"), api_login("nobody@example.com")
    check(login[0] == 401 and login == nobody, "Pro without a password: POST /api/user/login is the generic 401")
    other = Browser(base)
    status = other.send("POST", "/inbox/sign-in", {"csrf_token": other.csrf("/inbox/sign-in"), "kind": "pro",
                                                   "email": "pro@example.com", "password": PASSWORD})[0]
    check(status == 401 and "postern_inbox" not in other.cookies, "Pro without a password: the password form refuses")


def main():
    env = {"POSTERN_PUBLIC_URL": PUBLIC}
    with postern(env=env, owners=[("ada@example.com", PASSWORD), ("bob@example.com", PASSWORD)],
                 pro_users=[("pro@example.com", PASSWORD)]) as base:
        browser = Browser(base)
        check("passkey-sign-in" in browser.send("GET", "/owner/sign-in")[2], "the sign-in page offers a passkey")
        keys = {}
        for kind in ("es256", "eddsa", "rs256"):
            key = SoftwareAuthenticator(kind, RP_ID, PUBLIC, synced=(kind == "eddsa"))
            check(browser.sign_in_password("ada@example.com") == 303, f"{kind}: Ada signs in with her password")
            options = browser.registration_options()
            check(options["rp"]["id"] == RP_ID and options["authenticatorSelection"]["userVerification"] == "required",
                  f"{kind}: creation options name the RP ID and require UV")
            check(browser.register(key.register(options), f"{kind} key") == "passkey.added", f"{kind}: registered")
            page = browser.send("GET", "/owner")[2]
            check(f"{kind} key" in page, f"{kind}: listed under Sign-in methods")
            browser.sign_out()
            token, request = browser.sign_in_options()
            check(request["rpId"] == RP_ID and request["allowCredentials"] == [], f"{kind}: discoverable sign-in options")
            status, headers, _ = browser.sign_in(token, key.sign_in(request))
            check(status == 303 and "postern_owner" in browser.cookies and browser.signed_in(),
                  f"{kind}: the passkey alone signs Ada in")
            browser.sign_out()
            keys[kind] = key
        browser.sign_in_password("ada@example.com")
        check("synced passkey" in browser.send("GET", "/owner")[2], "a backup-eligible passkey is shown as synced")
        browser.sign_out()

        key = keys["es256"]
        forged = [
            ("a wrong origin", dict(origin="https://passkeys.example"), "verification.origin"),
            ("a wrong RP ID hash", dict(rp_id="example.localhost"), "verification.rp_id_hash"),
            ("UV clear", dict(flags=UP), "verification.user_verified"),
            ("an unknown credential id", dict(credential_id=os.urandom(16)), "unknown_credential"),
            ("another user's handle", dict(user_handle=os.urandom(32)), "user_handle"),
            ("over-deep CBOR extensions", dict(extensions=deep_cbor(40)), "verification.authenticator_data"),
            ("truncated CBOR extensions", dict(extensions=b"\xa1\x6b"), "verification.authenticator_data"),
        ]
        for what, forge, reason in forged:
            token, request = browser.sign_in_options()
            expect_refused(browser, browser.sign_in(token, key.sign_in(request, **forge)), what, reason)

        # Six failures in a row for one passkey from one address block it for 2 s, as six wrong passwords would.
        token, request = browser.sign_in_options()
        good = key.sign_in(request)
        status, headers, _ = browser.sign_in(token, good)
        check(status == 429 and "postern_owner" not in browser.cookies, "after six failures the passkey is slowed (429)")
        time.sleep(int(headers.get("Retry-After", "2")) + 0.2)
        check(browser.sign_in(token, good)[0] == 303, "a good assertion signs in once the block is over")
        browser.sign_out()
        expect_refused(browser, browser.sign_in(browser.csrf("/owner/sign-in"), good), "a replayed challenge",
                       "challenge")

        check(browser.sign_in_password("bob@example.com") == 303, "Bob signs in")
        bobs = browser.registration_options()
        browser.sign_out()
        expect_refused(browser, browser.sign_in(browser.csrf("/owner/sign-in"), key.sign_in(bobs)),
                       "another person's (registration) challenge", "challenge")
        expect_refused(browser, browser.sign_in(browser.csrf("/owner/sign-in"), '{"rawId":"AAAA","response":{'),
                       "a truncated answer", "malformed")

        # Registration: the same refusal for a forged answer, and nothing stored.
        check(browser.sign_in_password("ada@example.com") == 303, "Ada signs in again")
        for what, forge in [
            ("alg -8 on an EC2 key", dict(alg=-8)),
            ("alg -257 on an EC2 key", dict(alg=-257)),
            ("a truncated attestation object", dict(attestation=b"\xa3\x63fmt\x64none\x67attStmt")),
            ("an over-deep attestation object", dict(attestation=b"\xa1\x63fmt" + deep_cbor(40))),
            ("UV clear at registration", dict(flags=UP | 0x40)),
            ("a wrong origin at registration", dict(origin="https://evil.localhost")),
        ]:
            fresh = SoftwareAuthenticator("es256", RP_ID, PUBLIC)
            code = browser.register(fresh.register(browser.registration_options(), **forge), "forged")
            check(code == "passkey.refused", f"registration with {what}: refused")
        _, _, page = browser.send("GET", "/owner")
        check("forged" not in page, "no forged passkey was stored")
        # Another person's registration challenge.
        fresh = SoftwareAuthenticator("es256", RP_ID, PUBLIC)
        browser.sign_out()
        browser.sign_in_password("bob@example.com")
        bobs = browser.registration_options()
        browser.sign_out()
        browser.sign_in_password("ada@example.com")
        check(browser.register(fresh.register(bobs), "stolen") == "passkey.refused",
              "registration with another person's challenge: refused")
        browser.sign_out()

        # Expired: the server's clock is real, so the challenge's five minutes are made to have passed in its row
        # (the Swift suite, OwnerPasskeyTests, moves a test clock instead).
        token, request = browser.sign_in_options()
        with sqlite3.connect(os.path.join(base.data, "postern.sqlite3"), timeout=30) as database:
            database.execute("UPDATE passkey_challenges SET expires_at = expires_at - 301")
        expect_refused(browser, browser.sign_in(token, key.sign_in(request)), "an expired challenge", "challenge")

        pro_passkeys(base, keys["eddsa"])

        status, _, metrics = browser.send("GET", "/metrics")
        check(status == 200 and 'postern_passkey_ceremonies_total{ceremony="sign_in",result="success"}' in metrics
              and 'postern_passkey_ceremonies_total{ceremony="sign_in",result="refused"}' in metrics
              and 'postern_passkey_ceremonies_total{ceremony="registration",result="refused"}' in metrics,
              "/metrics counts passkey ceremonies by ceremony and result")
    check.finish("test_passkeys")


if __name__ == "__main__":
    started = time.monotonic()
    main()
    print(f"test_passkeys: {time.monotonic() - started:.1f} s")
