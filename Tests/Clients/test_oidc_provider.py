"""Postern as an OpenID Provider (issue 88), seen by relying parties nobody here wrote: authlib's OAuth 2 client and
its strict ID token validation (`authlib.oidc.core.CodeIDToken`: iss, aud, azp, exp, iat, nonce, at_hash), unchanged,
signing an owner in to a relying party the operator made with `postern oauth client create --redirect-uri`.

Then the provider checks an OpenID conformance run would make, each run first on a control provider (PyPI
oidc-provider-mock 0.3.4, authlib under Flask) to prove the harness, then on Postern: discovery, the nonce echoed
(an ID token replayed into another sign-in is refused by its nonce), a code used twice, at_hash, iss/aud/azp,
userinfo, an unregistered redirect URI (no redirect), `prompt=none` signed out (`login_required`), `prompt=login`
and `max_age` forcing a new sign-in, a key rotation seen through the JWKS, back-channel logout delivered to a
loopback receiver. A check the control does not offer (its discovery lists no such feature: it keeps no session, so
`prompt`, `max_age` and back-channel logout mean nothing to it, and its one key never rotates) is said so, not
counted as passed.

A client registered with ES256 and pairwise subjects asks by the `claims` parameter for the email and name: authlib
checks the ES256 signature through the JWKS, and the sub is its own, stable, the same at userinfo and introspection.

Standard library, authlib (as test_oauth_authlib.py installs it) and oidc-provider-mock (postern_testkit.oidc_mock),
against `.build/debug/postern` (or $POSTERN_BIN).
"""

import hashlib
import base64
import html
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import os
import re
import secrets
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, FormDriver, http, postern
from postern_testkit.oidc_mock import mock_provider, postern_command
from postern_testkit.server import install_packages
from test_oauth_authlib import install as install_authlib

check = Checks()
OWNER, PASSWORD = "ann@example.com", "ann-password-1"


class BackChannel:
    """A loopback receiver of logout tokens (OpenID Back-Channel Logout 1.0): records each POSTed form."""

    def __init__(self):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                received.append(dict(urllib.parse.parse_qsl(self.rfile.read(length).decode())))
                self.send_response(200)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/backchannel"

    def close(self):
        self.server.shutdown()


class Provider:
    """What the harness needs of an OpenID Provider: its discovery, a client, and a browser that signs in."""

    name = ""
    redirect_uri = "http://127.0.0.1:9/cb"

    def __init__(self, issuer):
        self.issuer = issuer
        self.meta = json.loads(get(issuer + "/.well-known/openid-configuration"))

    def rp(self, scope="openid email profile"):
        from authlib.integrations.httpx_client import OAuth2Client
        return OAuth2Client(self.client_id, self.client_secret, scope=scope, redirect_uri=self.redirect_uri,
                            code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")

    def jwks(self):
        from authlib.jose import JsonWebKey
        return JsonWebKey.import_key_set(json.loads(get(self.meta["jwks_uri"])))

    def supports(self, member):
        return bool(self.meta.get(member))


class Control(Provider):
    name = "control (oidc-provider-mock)"

    def __init__(self, issuer):
        super().__init__(issuer)
        status, _, body = http(issuer, "POST", "/oauth2/clients", {"redirect_uris": [self.redirect_uri]})
        assert status == 201, f"mock registration: {status} {body}"
        self.client_id, self.client_secret = body["client_id"], body["client_secret"]
        self.browser = FormDriver(issuer)

    def sign_in(self, url, expect_form=True):
        status, location, _ = self.browser.request("GET", url)
        if status != 200:
            return status, location
        status, location, _ = self.browser.request("POST", url, {"sub": OWNER})
        return status, location


class Postern(Provider):
    name = "Postern"

    def __init__(self, base, backchannel):
        super().__init__(str(base))
        self.base = base
        out = postern_command(base, "oauth", "client", "create", "--name", "Strict RP", "--redirect-uri",
                              self.redirect_uri, "--backchannel-logout-uri", backchannel.url,
                              "--post-logout-redirect-uri", "http://127.0.0.1:9/bye")
        fields = dict(line.split(": ", 1) for line in out.splitlines() if line.startswith("client_"))
        self.client_id, self.client_secret = fields["client_id"], fields["client_secret"].split("  ", 1)[0]
        self.browser = FormDriver(str(base))
        self.signed_in_at = None

    def sign_in(self, url, expect_form=True):
        status, location, html = self.browser.request("GET", url)
        if status == 303 and location.startswith("/owner/sign-in"):
            self.signed_in_at = int(time.time())
            status, location, html = self.browser.request("GET", self.browser.sign_in(location, OWNER, PASSWORD))
        if status == 200 and "/oauth/openid-consent" in html:
            form = self.browser.forms(html).form("/oauth/openid-consent")
            fields = self.browser.hidden(form) | {"decision": "approve"}
            status, location, _ = self.browser.request("POST", form["action"], fields)
        return status, location


def get(url):
    import urllib.request
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode()


def query(location):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location or "").query))


def sign_in_flow(provider, extra=None):
    """The strict RP's code flow: (token response, nonce, verifier, location)."""
    client = provider.rp()
    verifier, nonce = secrets.token_urlsafe(48), secrets.token_urlsafe(16)
    url, state = client.create_authorization_url(provider.meta["authorization_endpoint"], code_verifier=verifier,
                                                 nonce=nonce, **(extra or {}))
    status, location = provider.sign_in(url)
    if not location or "code=" not in location:
        return None, nonce, verifier, location
    token = client.fetch_token(provider.meta["token_endpoint"], authorization_response=location, state=state,
                               code_verifier=verifier)
    return token, nonce, verifier, location


def validated(provider, token, nonce):
    """The ID token's claims as authlib's CodeIDToken validates them (raises on any failed check)."""
    from authlib.jose import jwt
    from authlib.oidc.core import CodeIDToken
    claims = jwt.decode(
        token["id_token"], provider.jwks(), claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": provider.meta["issuer"]},
                        "aud": {"essential": True, "value": provider.client_id}},
        claims_params={"nonce": nonce, "client_id": provider.client_id, "access_token": token["access_token"]})
    claims.validate(leeway=30)
    return claims


def refused(function):
    try:
        function()
    except Exception as error:  # authlib raises its JoseError subclasses; any refusal counts
        return type(error).__name__
    return None


def conformance(provider, backchannel=None):
    """The provider checks, on `provider`; returns {check: passed | 'n/a: why'}."""
    results = {}
    label = provider.name

    def record(name, ok, detail=""):
        results[name] = bool(ok)
        check(ok, f"{label}: {name} {detail}".rstrip())

    def not_offered(name, why):
        results[name] = "n/a: " + why
        print(f"  {label}: {name}: not offered ({why})")

    meta = provider.meta
    record("discovery", meta.get("issuer") == provider.issuer.rstrip("/") and "code" in meta["response_types_supported"]
           and meta.get("jwks_uri") and meta.get("token_endpoint"), f"({meta.get('issuer')})")

    token, nonce, verifier, location = sign_in_flow(provider)
    record("code flow", token is not None and "id_token" in token, f"({location})")
    claims = validated(provider, token, nonce)
    audience = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    record("iss/aud/exp/iat/nonce (CodeIDToken.validate)", claims["nonce"] == nonce and provider.client_id in audience,
           f"({dict(claims)})")
    record("azp, when present, is the client", claims.get("azp", provider.client_id) == provider.client_id)
    expected_hash = base64.urlsafe_b64encode(
        hashlib.sha256(token["access_token"].encode()).digest()[:16]).rstrip(b"=").decode()
    record("at_hash binds the access token", claims.get("at_hash") == expected_hash, f"({claims.get('at_hash')})")
    # The nonce: the same ID token validated for a sign-in that sent another nonce is refused.
    record("an ID token replayed into another sign-in is refused by its nonce",
           refused(lambda: validated(provider, token, secrets.token_urlsafe(16))) is not None)
    status, _, info = http(provider.issuer, "GET", urllib.parse.urlsplit(meta["userinfo_endpoint"]).path,
                           bearer=token["access_token"])
    record("userinfo: sub as the ID token's", status == 200 and info.get("sub") == claims["sub"], f"({status})")

    # Code reuse: a second exchange of one code is invalid_grant.
    client = provider.rp()
    url, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce="n2")
    _, location = provider.sign_in(url)
    code = query(location).get("code")
    fields = {"grant_type": "authorization_code", "code": code, "redirect_uri": provider.redirect_uri,
              "code_verifier": verifier}
    auth = base64.b64encode(f"{provider.client_id}:{provider.client_secret}".encode()).decode()
    path = urllib.parse.urlsplit(meta["token_endpoint"]).path
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + auth}
    first = http(provider.issuer, "POST", path, urllib.parse.urlencode(fields).encode(), headers=headers)
    second = http(provider.issuer, "POST", path, urllib.parse.urlencode(fields).encode(), headers=headers)
    record("a code used twice is invalid_grant", first[0] == 200 and second[0] == 400
           and second[2].get("error") == "invalid_grant", f"({first[0]}, {second[0]} {second[2]})")

    # An unregistered redirect URI: an error page, never a redirect to it.
    url, _ = provider.rp().create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier,
                                                    nonce="n3")
    evil = url.replace(urllib.parse.quote(provider.redirect_uri, safe=""),
                       urllib.parse.quote("http://127.0.0.1:9/evil", safe=""))
    status, location, _ = provider.browser.request("GET", evil)
    record("an unregistered redirect_uri is refused without a redirect", status == 400 and not location,
           f"({status}, {location})")

    if not provider.supports("prompt_values_supported"):
        why = "its discovery lists no prompt_values_supported: it keeps no session"
        for name in ["prompt=none signed out is login_required", "prompt=login forces a new sign-in",
                     "max_age forces a new sign-in"]:
            not_offered(name, why)
    else:
        fresh = FormDriver(provider.issuer)
        url, state = provider.rp().create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier,
                                                            nonce="n4", prompt="none")
        status, location, _ = fresh.request("GET", url)
        answer = query(location)
        record("prompt=none signed out is login_required", answer.get("error") == "login_required"
               and answer.get("state") == state and location.startswith(provider.redirect_uri), f"({location})")
        url, _ = provider.rp().create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier,
                                                        nonce="n5", prompt="login")
        status, location, _ = provider.browser.request("GET", url)
        record("prompt=login forces a new sign-in", status == 303 and location.startswith("/owner/sign-in")
               and "again=login" in location, f"({status} {location})")
        time.sleep(2)
        provider.signed_in_at = None  # set again only if the flow below is sent to the sign-in form
        token, nonce, _, location = sign_in_flow(provider, {"max_age": 1})
        claims = validated(provider, token, nonce) if token else {}
        record("max_age forces a new sign-in", token is not None and provider.signed_in_at is not None
               and claims["auth_time"] >= provider.signed_in_at,
               f"(auth_time {claims.get('auth_time')}, signed in at {provider.signed_in_at})")

    if not isinstance(provider, Postern):
        not_offered("key rotation seen through the JWKS", "the mock's one key never rotates")
    else:
        old = {key["kid"] for key in json.loads(get(meta["jwks_uri"]))["keys"]}
        postern_command(provider.base, "keys", "rotate")
        deadline = time.time() + 20
        while time.time() < deadline:
            published = {key["kid"] for key in json.loads(get(meta["jwks_uri"]))["keys"]}
            if published - old:
                break
            time.sleep(0.5)
        token, nonce, _, _ = sign_in_flow(provider)
        header = json.loads(base64.urlsafe_b64decode(token["id_token"].split(".")[0] + "=="))
        claims = validated(provider, token, nonce)
        record("key rotation seen through the JWKS", header["kid"] in published - old and old <= published,
               f"(signed by {header['kid']}; new {sorted(published - old)})")

    if not provider.supports("backchannel_logout_supported"):
        for name in ["back-channel logout delivered", "after logout, prompt=none is login_required"]:
            not_offered(name, "its discovery lists no backchannel_logout_supported")
    else:
        token, nonce, _, _ = sign_in_flow(provider)
        sid = validated(provider, token, nonce)["sid"]
        before = len(backchannel.received)
        hint = {"id_token_hint": token["id_token"], "post_logout_redirect_uri": "http://127.0.0.1:9/bye",
                "state": "bye"}
        status, location, _ = provider.browser.request(
            "GET", urllib.parse.urlsplit(meta["end_session_endpoint"]).path + "?" + urllib.parse.urlencode(hint))
        delivered = backchannel.received[before:]
        logout = None
        if delivered:
            from authlib.jose import jwt
            logout = jwt.decode(delivered[0]["logout_token"], provider.jwks())
        record("back-channel logout delivered", status in (302, 303) and location == "http://127.0.0.1:9/bye?state=bye"
               and logout is not None and logout["sid"] == sid and logout["aud"] == provider.client_id
               and "http://schemas.openid.net/event/backchannel-logout" in logout["events"]
               and "nonce" not in logout, f"({status} {location}, {len(delivered)} delivered)")
        url, _ = provider.rp().create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier,
                                                        nonce="n6", prompt="none")
        _, location, _ = provider.browser.request("GET", url)
        record("after logout, prompt=none is login_required", query(location).get("error") == "login_required")
    return results


def strict_rp(provider):
    """authlib's RP, every claim: the ID token validates, its email and amr, userinfo's email."""
    token, nonce, _, location = sign_in_flow(provider)
    claims = validated(provider, token, nonce)
    check(claims["sub"] and claims["email"] == OWNER and claims["amr"] == ["pwd"] and claims["acr"] == "1"
          and claims["auth_time"] <= claims["iat"] and claims["exp"] - claims["iat"] == 300
          and query(location).get("iss") == provider.issuer,
          f"strict RP: sub, email, amr pwd, acr, auth_time, exp, RFC 9207 iss ({dict(claims)})")
    from authlib.integrations.httpx_client import OAuth2Client
    client = OAuth2Client(provider.client_id, provider.client_secret, token=token)
    info = client.get(provider.meta["userinfo_endpoint"]).json()
    check(info == {"sub": claims["sub"], "email": OWNER, "email_verified": True, "preferred_username": OWNER},
          f"strict RP: userinfo ({info})")
    status, head, body = http(provider.issuer, "POST", "/oauth/token", urllib.parse.urlencode(
        {"grant_type": "authorization_code", "code": "x", "redirect_uri": provider.redirect_uri}).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + base64.b64encode(
            f"{provider.client_id}:wrong".encode()).decode()})
    check(status == 401 and body.get("error") == "invalid_client" and head.get("WWW-Authenticate", "").startswith("Basic"),
          f"invalid_client over Basic is 401 with WWW-Authenticate ({status})")
    discovery = json.loads(get(provider.issuer + "/.well-known/oauth-authorization-server"))
    check(discovery == provider.meta, "the RFC 8414 document and the OpenID configuration are one")


def operator_settings(provider):
    """What the operator decides per client: a legacy client alone may omit PKCE (audited, listed, on owner show);
    a listed sign-in policy refuses other owners; second-factor refuses a password session."""
    base = provider.base
    redirect = "http://127.0.0.1:9/legacy"

    def make(*arguments):
        out = postern_command(base, "oauth", "client", "create", "--first-party", "--redirect-uri", redirect,
                              *arguments)
        fields = dict(line.split(": ", 1) for line in out.splitlines() if line.startswith("client_"))
        return fields["client_id"], fields["client_secret"].split("  ", 1)[0], out

    def authorize(client_id, pkce):
        fields = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect, "scope": "openid",
                  "state": "s"}
        if pkce:
            fields |= {"code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}
        _, location, _ = provider.browser.request("GET", "/oauth/authorize?" + urllib.parse.urlencode(fields))
        return query(location)

    legacy, secret, out = make("--name", "Roundcube", "--legacy-no-pkce")
    check("legacy-no-pkce" in out, "oauth client create --legacy-no-pkce says so")
    code = authorize(legacy, pkce=False).get("code")
    status, _, body = http(base, "POST", "/oauth/token", urllib.parse.urlencode(
        {"grant_type": "authorization_code", "code": code or "", "redirect_uri": redirect}).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + base64.b64encode(
            f"{legacy}:{secret}".encode()).decode()})
    check(code and status == 200 and "id_token" in body, f"a legacy client signs in without PKCE ({status})")
    modern, _, _ = make("--name", "Modern")
    answer = authorize(modern, pkce=False)
    check(answer.get("error") == "invalid_request" and "code" not in answer,
          f"any other client without PKCE is invalid_request at its redirect URI ({answer})")
    listed = postern_command(base, "oauth", "client", "list")
    check(any(legacy in line and "legacy-no-pkce" in line for line in listed.splitlines()),
          "oauth client list marks the legacy client")
    events = [json.loads(line) for line in postern_command(base, "audit", "--json").splitlines()
              if line.startswith("{")]
    check(any(e["action"] == "operator.command" and (e.get("details") or {}).get("client_id") == legacy
              and (e.get("details") or {}).get("legacy_no_pkce") == "true" for e in events),
          "the audit trail records the legacy client")
    shown = postern_command(base, "owner", "show", "--email", OWNER)
    check(any(provider.client_id in line for line in shown.splitlines()),
          f"owner show lists the OpenID app the owner allowed ({shown.strip()[-300:]})")
    # The owner revokes the app on /owner: its consent is forgotten (prompt=none is consent_required again) and its
    # access token stops opening userinfo.
    token, _, _, _ = sign_in_flow(provider)
    _, _, html = provider.browser.request("GET", "/owner")
    action = f"/owner/openid-apps/{provider.client_id}/revoke"
    form = provider.browser.forms(html).form(action)
    status, _, _ = provider.browser.request("POST", action, provider.browser.hidden(form))
    url, _ = provider.rp().create_authorization_url(provider.meta["authorization_endpoint"],
                                                    code_verifier=secrets.token_urlsafe(48), nonce="r", prompt="none")
    _, location, _ = provider.browser.request("GET", url)
    status_info, _, _ = http(base, "GET", "/oauth/userinfo", bearer=token["access_token"])
    check(status == 303 and query(location).get("error") == "consent_required" and status_info == 401,
          f"the owner revokes the app on /owner: consent asked again, its token refused ({status}, {location}, "
          f"{status_info})")
    other, _, _ = make("--name", "Bob only", "--sign-in", "listed", "--sign-in-owner", "bob@example.com")
    check(authorize(other, pkce=True).get("error") == "access_denied", "a listed policy refuses an owner not listed")
    strong, strong_secret, _ = make("--name", "Second factor", "--sign-in", "second-factor")
    check(authorize(strong, pkce=True).get("error") == "access_denied",
          "second-factor refuses a password session")
    two_step(provider, strong, strong_secret, redirect)


def two_step(provider, client_id, secret, redirect):
    """A password and a TOTP code (pyotp as the authenticator app) sign in to the second-factor client: its ID token
    says amr ["pwd", "otp", "mfa"] and acr 2. The factor is removed afterwards (postern owner mfa reset)."""
    install_packages("pyotp", ["pyotp==2.9.0"], ["pyotp"])
    import pyotp
    _, _, page = provider.browser.request("GET", "/owner/two-step")
    setup = provider.browser.forms(page).form("/owner/two-step/setup")
    _, _, page = provider.browser.request("POST", "/owner/two-step/setup", provider.browser.hidden(setup))
    app = pyotp.parse_uri(html.unescape(re.search(r'id="totp-uri" href="([^"]+)"', page).group(1)))
    confirm = provider.browser.forms(page).form("/owner/two-step/confirm")
    provider.browser.request("POST", "/owner/two-step/confirm", provider.browser.hidden(confirm) | {"code": app.now()})
    browser = FormDriver(str(provider.base))
    first = browser.sign_in("/owner/sign-in?next=/owner", OWNER, PASSWORD)
    _, _, page = browser.request("GET", first)
    form = browser.forms(page).form(first)
    status, _, _ = browser.request("POST", first, browser.hidden(form) | {"code": app.at(time.time() + 30)})
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    fields = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect, "scope": "openid",
              "state": "s", "nonce": "totp", "code_challenge": challenge, "code_challenge_method": "S256"}
    _, location, _ = browser.request("GET", "/oauth/authorize?" + urllib.parse.urlencode(fields))
    _, _, body = http(provider.base, "POST", "/oauth/token", urllib.parse.urlencode(
        {"grant_type": "authorization_code", "code": query(location).get("code", ""), "redirect_uri": redirect,
         "code_verifier": verifier}).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + base64.b64encode(
            f"{client_id}:{secret}".encode()).decode()})
    claims = {}
    if "id_token" in body:
        from authlib.jose import jwt
        claims = jwt.decode(body["id_token"], provider.jwks())
    check(first == "/owner/sign-in/second-step" and status == 303 and claims.get("amr") == ["pwd", "otp", "mfa"]
          and claims.get("acr") == "2" and claims.get("nonce") == "totp",
          f"a password and a TOTP code pass second-factor: amr pwd otp mfa, acr 2 ({first}, {status}, {location}, "
          f"{dict(claims)})")
    postern_command(provider.base, "owner", "mfa", "reset", "--email", OWNER)


def es256_pairwise_claims(provider):
    """A client registered with ES256 ID tokens and pairwise subjects, asking by the claims parameter for the email and
    name with openid alone: authlib's CodeIDToken checks the ES256 signature through the JWKS (an EC key), the sub is
    not the public one, the same at every sign-in, at userinfo and at introspection."""
    import copy
    out = postern_command(provider.base, "oauth", "client", "create", "--name", "ES256 pairwise", "--first-party",
                          "--redirect-uri", "http://127.0.0.1:9/es256", "--id-token-alg", "ES256",
                          "--subject-type", "pairwise")
    fields = dict(line.split(": ", 1) for line in out.splitlines() if line.startswith("client_"))
    rp = copy.copy(provider)
    rp.client_id, rp.client_secret = fields["client_id"], fields["client_secret"].split("  ", 1)[0]
    rp.redirect_uri = "http://127.0.0.1:9/es256"
    check("pairwise 127.0.0.1" in out and "id_token ES256" in out, f"oauth client create says ES256 pairwise ({out})")
    check("ES256" in provider.meta["id_token_signing_alg_values_supported"]
          and "pairwise" in provider.meta["subject_types_supported"] and provider.meta["claims_parameter_supported"],
          "discovery lists ES256, pairwise subjects and the claims parameter")
    asked = json.dumps({"id_token": {"email": {"essential": True}, "name": None, "picture": None}})
    subjects = []
    for _ in range(2):
        client = rp.rp(scope="openid")
        verifier, nonce = secrets.token_urlsafe(48), secrets.token_urlsafe(16)
        url, state = client.create_authorization_url(rp.meta["authorization_endpoint"], code_verifier=verifier,
                                                     nonce=nonce, claims=asked)
        _, location = rp.sign_in(url)
        token = client.fetch_token(rp.meta["token_endpoint"], authorization_response=location, state=state,
                                   code_verifier=verifier)
        header = json.loads(base64.urlsafe_b64decode(token["id_token"].split(".")[0] + "=="))
        claims = validated(rp, token, nonce)  # the signature checked with the JWKS's EC key
        subjects.append(claims["sub"])
    ec = [key for key in json.loads(get(rp.meta["jwks_uri"]))["keys"] if key["kid"] == header["kid"]]
    check(header["alg"] == "ES256" and ec and ec[0]["kty"] == "EC" and ec[0]["crv"] == "P-256",
          f"the ES256 ID token verifies with the JWKS's P-256 key ({header}, {ec})")
    check(claims["email"] == OWNER and claims["name"] == OWNER and "picture" not in claims
          and "email_verified" not in claims, f"the claims parameter: email and name, nothing else ({dict(claims)})")
    _, _, public = http(provider.issuer, "GET", "/oauth/userinfo",
                        bearer=sign_in_flow(provider)[0]["access_token"])
    status, _, info = http(provider.issuer, "GET", "/oauth/userinfo", bearer=token["access_token"])
    check(status == 200 and info == {"sub": subjects[0]},
          f"userinfo: the pairwise sub, and no email for openid alone ({status} {info})")
    check(subjects[0] == subjects[1] and subjects[0] != public["sub"] and len(subjects[0]) == 43,
          f"the pairwise sub is stable and not the public one ({subjects}, {public['sub']})")
    out = postern_command(provider.base, "oauth", "client", "create", "--name", "Introspector", "--introspection")
    fields = dict(line.split(": ", 1) for line in out.splitlines() if line.startswith("client_"))
    auth = base64.b64encode(f"{fields['client_id']}:{fields['client_secret'].split('  ', 1)[0]}".encode()).decode()
    status, _, answer = http(provider.issuer, "POST", "/oauth/introspect",
                             urllib.parse.urlencode({"token": token["access_token"]}).encode(),
                             headers={"Content-Type": "application/x-www-form-urlencoded",
                                      "Authorization": "Basic " + auth})
    check(status == 200 and answer.get("active") is True and answer.get("sub") == subjects[0]
          and answer.get("client_id") == rp.client_id, f"introspection: the same pairwise sub ({status} {answer})")
    return subjects[0]


def sector_identifier(provider, sector_subject):
    """A pairwise client whose redirect URIs name two hosts (127.0.0.1 and localhost) gives a sector_identifier_uri,
    fetched by `oauth client create` from a loopback server (POSTERN_OAUTH_CIMD_ALLOW_HOSTS): its host, 127.0.0.1, is
    the sector, so the owner's sub is the one the ES256 client of 127.0.0.1 got. Refused: two hosts without one, a
    document that leaves a redirect URI out, one that is not there, and one given to a public client."""
    import copy
    redirects = ["http://127.0.0.1:9/sector", "http://localhost:9/sector"]
    documents = {"/all.json": json.dumps(redirects + ["http://127.0.0.1:9/other"]).encode(),
                 "/partial.json": json.dumps(redirects[:1]).encode()}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = documents.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body or b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    where = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        def create(*extra):
            arguments = ["--name", "Two hosts", "--first-party", "--subject-type", "pairwise"]
            for uri in redirects:
                arguments += ["--redirect-uri", uri]
            return postern_command(provider.base, "oauth", "client", "create", *arguments, *extra)
        check("client_id" not in create(), "pairwise redirect URIs on two hosts need a sector_identifier_uri")
        check("client_id" not in create("--sector-identifier-uri", where + "/partial.json"),
              "a sector_identifier_uri that leaves a redirect URI out is refused")
        check("client_id" not in create("--sector-identifier-uri", where + "/missing.json"),
              "a sector_identifier_uri that answers 404 is refused")
        public = postern_command(provider.base, "oauth", "client", "create", "--name", "Public", "--redirect-uri",
                                 redirects[0], "--sector-identifier-uri", where + "/all.json")
        check("client_id" not in public, "a sector_identifier_uri is for pairwise clients only")
        out = create("--sector-identifier-uri", where + "/all.json")
    finally:
        server.shutdown()
    check("pairwise 127.0.0.1" in out, f"oauth client create: the sector is the sector_identifier_uri's host ({out})")
    fields = dict(line.split(": ", 1) for line in out.splitlines() if line.startswith("client_"))
    rp = copy.copy(provider)
    rp.client_id, rp.client_secret = fields["client_id"], fields["client_secret"].split("  ", 1)[0]
    rp.redirect_uri = redirects[1]
    client = rp.rp(scope="openid")
    verifier, nonce = secrets.token_urlsafe(48), secrets.token_urlsafe(16)
    url, state = client.create_authorization_url(rp.meta["authorization_endpoint"], code_verifier=verifier,
                                                 nonce=nonce)
    _, location = rp.sign_in(url)
    token = client.fetch_token(rp.meta["token_endpoint"], authorization_response=location, state=state,
                               code_verifier=verifier)
    sub = validated(rp, token, nonce)["sub"]
    check(sub == sector_subject, f"the sector's sub, as the other client of 127.0.0.1 got ({sub}, {sector_subject})")


def main():
    install_authlib()
    with mock_provider(require_client_registration=True) as issuer:
        control = conformance(Control(issuer))
    backchannel = BackChannel()
    env = {"POSTERN_OAUTH_CIMD_ALLOW_HOSTS": "127.0.0.1", "POSTERN_KEY_RELOAD_SECONDS": "1"}
    try:
        with postern(env=env, owners=[(OWNER, PASSWORD), ("bob@example.com", "bob-password-1")]) as base:
            base.env = env  # postern_command runs the CLI with the server's settings
            provider = Postern(base, backchannel)
            strict_rp(provider)
            sector_identifier(provider, es256_pairwise_claims(provider))
            operator_settings(provider)
            ours = conformance(provider, backchannel)
    finally:
        backchannel.close()
    print("check | control | Postern")
    for name in ours:
        print(f"{name} | {control.get(name)} | {ours[name]}")
    check.finish("test_oidc_provider")


if __name__ == "__main__":
    main()
