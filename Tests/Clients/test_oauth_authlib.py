"""authlib (PyPI), unmodified, against a real Postern's OAuth 2.1 authorization server: discovery (RFC 8414
metadata validated by authlib), dynamic registration, the code flow with PKCE S256 through the sign-in and consent
forms (a browser-less driver, `oauth_form_driver.py`), refresh with rotation, reuse detection, revocation (RFC 7009),
code replay; the access token verified with the JWKS's Ed25519 key by Python's `cryptography` and by authlib's RFC
9068 validator; and every row of the contract's error table (oauth-mcp-contract.md 1.13) that the authorization
server answers.

Self-contained: installs authlib and httpx into .build/client-sdks/ (pip --target), creates an owner with
`postern owner create`, runs against .build/debug/postern (or $POSTERN_BIN) with
POSTERN_OAUTH_REFRESH_RACE_SECONDS=0 and POSTERN_OAUTH_REFRESH_RETRY_SECONDS=0, so that any reuse of a superseded
refresh token revokes at once.
"""

import base64
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, FormDriver, http, install_packages, postern

VERSION = "1.9.10"
EMAIL, PASSWORD = "owner@example.com", "owner-password-1"
CALLBACK = "http://127.0.0.1:8765/callback"
check = Checks()


def install():
    install_packages("authlib-" + VERSION, ["authlib==" + VERSION, "httpx"], ["authlib", "httpx"])


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def query(url):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).items()}


def main(base):
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # http on 127.0.0.1, for metadata validation only
    import httpx
    from authlib.common.security import generate_token
    from authlib.integrations.base_client.errors import OAuthError
    from authlib.integrations.httpx_client import OAuth2Client
    from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
    from authlib.oauth2.rfc9068 import JWTBearerTokenValidator
    from authlib.oauth2.rfc9068.claims import JWTAccessTokenClaims
    from joserfc import jwt as jose_jwt
    from joserfc.jwk import KeySet

    jmap = base + "/jmap"
    status, head, metadata = http(base, "GET", "/.well-known/oauth-authorization-server")
    check(status == 200 and head.get("Access-Control-Allow-Origin") == "*", "metadata: 200 with CORS *")
    AuthorizationServerMetadata(metadata).validate()
    check(metadata["issuer"] == base and metadata["code_challenge_methods_supported"] == ["S256"],
          "metadata: authlib validates it; issuer is the base URL; S256 only")

    registration = httpx.post(base + "/oauth/register", json={
        "client_name": "authlib", "redirect_uris": [CALLBACK], "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"], "application_type": "native"})
    client_id = registration.json()["client_id"]
    check(registration.status_code == 201 and registration.json()["token_endpoint_auth_method"] == "none"
          and "client_secret" not in registration.json(), "register: 201, omitted method echoed as none, no secret")

    driver = FormDriver(base)

    def client(scope="mail.read mail.send"):
        return OAuth2Client(client_id=client_id, token_endpoint_auth_method="none", redirect_uri=CALLBACK, scope=scope,
                            code_challenge_method="S256", token_endpoint=metadata["token_endpoint"])

    def flow(c, **consent):
        """Runs authorize (through the forms) and the code exchange; returns the token and the callback URL."""
        verifier = generate_token(64)
        url, state = c.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier,
                                                resource=jmap)
        callback = driver.authorize(url, EMAIL, PASSWORD, **consent)
        check(query(callback).get("iss") == base and query(callback).get("state") == state,
              "authorize: the callback carries state and iss")
        return c.fetch_token(authorization_response=callback, state=state, code_verifier=verifier,
                             resource=jmap), callback

    # 1. Code flow with PKCE, creating the default inbox on the consent page.
    c = client()
    t1, callback = flow(c, new_inbox="authlib-inbox")
    header = json.loads(b64url(t1["access_token"].split(".")[0]))
    check(t1["expires_in"] == 900 and t1["token_type"] == "Bearer" and t1["scope"] == "mail.read mail.send",
          "token: 900 s Bearer with both scopes")
    check(header["typ"] == "at+jwt" and header["alg"] == "EdDSA", "token: header typ at+jwt, alg EdDSA")

    # The JWKS's Ed25519 key verifies it: Python's cryptography (verify_eddsa.py), then authlib's RFC 9068 validator.
    _, _, jwks = http(base, "GET", "/.well-known/jwks.json")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(jwks, f)
    verified = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "verify_eddsa.py"), f.name,
                               t1["access_token"]], capture_output=True, text=True)
    tampered = t1["access_token"][:-4] + ("AAAA" if not t1["access_token"].endswith("AAAA") else "BBBB")
    refused = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "verify_eddsa.py"), f.name,
                              tampered], capture_output=True, text=True)
    os.unlink(f.name)
    check(verified.returncode == 0 and refused.returncode == 1,
          "jwks: cryptography verifies the token with the Ed25519 key, and refuses a tampered one")

    # authlib's RFC 9068 validator decodes through joserfc, which since 1.x takes EdDSA only when the caller names it
    # (RFC 9864 prefers the fully specified "Ed25519"): decode naming it, then let authlib's at+jwt claims check
    # the rest with the validator's own options (iss, aud, the essential claims, typ).
    class Validator(JWTBearerTokenValidator):
        def authenticate_token(self, token_string):
            decoded = jose_jwt.decode(token_string, KeySet.import_key_set(jwks), algorithms=["EdDSA"])
            options = {name: {"essential": True} for name in ("exp", "sub", "client_id", "iat", "jti")}
            options["iss"] = {"essential": True, "validate": self.validate_iss}
            options["aud"] = {"essential": True, "value": self.resource_server}
            return JWTAccessTokenClaims(decoded.claims, decoded.header, options)

    validator = Validator(issuer=base, resource_server=jmap)
    claims = validator.authenticate_token(t1["access_token"])
    validator.validate_token(claims, scopes=["mail.read"], request=None)
    check(claims["client_id"] == client_id and len(claims["sub"]) == 36 and claims["aud"] == jmap,
          "token: authlib's RFC 9068 claims check takes it (typ, iss, aud, sub, client_id, iat, exp, jti)")
    other = Validator(issuer=base, resource_server=base + "/mcp")
    try:
        other.validate_token(other.authenticate_token(t1["access_token"]), scopes=["mail.read"], request=None)
        check(False, "a resource server for another audience refuses it")
    except Exception as error:  # authlib's InvalidTokenError
        check(type(error).__name__ == "InvalidTokenError", "a resource server for /mcp refuses a /jmap token")

    # 2. Refresh rotates; the superseded token presented again is invalid_grant and kills the grant.
    t2 = c.refresh_token(metadata["token_endpoint"], refresh_token=t1["refresh_token"])
    check(t2["refresh_token"] != t1["refresh_token"] and t2["access_token"] != t1["access_token"],
          "refresh: new refresh and access tokens")
    for what, token in (("superseded", t1["refresh_token"]), ("current after reuse", t2["refresh_token"])):
        try:
            c.refresh_token(metadata["token_endpoint"], refresh_token=token)
            check(False, f"refresh with the {what} token is refused")
        except OAuthError as error:
            check(error.error == "invalid_grant", f"refresh with the {what} token: invalid_grant")

    # 3. Code replay: invalid_grant, and the tokens the code issued die with their grant.
    c = client()
    t3, callback = flow(c)
    code = query(callback)["code"]
    replay = httpx.post(metadata["token_endpoint"], data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "client_id": client_id,
        "code_verifier": "x" * 43})
    check(replay.status_code == 400 and replay.json()["error"] == "invalid_grant", "code replay: 400 invalid_grant")
    dead = httpx.post(metadata["token_endpoint"], data={
        "grant_type": "refresh_token", "refresh_token": t3["refresh_token"], "client_id": client_id})
    check(dead.json().get("error") == "invalid_grant", "code replay: the refresh token it issued is revoked")

    # 4. Revocation: 200 for garbage; a refresh token revokes its grant.
    c = client("mail.read")
    t4, _ = flow(c)
    check(t4["scope"] == "mail.read", "a client asking for mail.read gets mail.read")
    garbage = c.revoke_token(metadata["revocation_endpoint"], token="not-a-token")
    check(garbage.status_code == 200, "revoke: 200 for an unknown token")
    revoked = c.revoke_token(metadata["revocation_endpoint"], token=t4["refresh_token"],
                             token_type_hint="refresh_token")
    check(revoked.status_code == 200, "revoke: 200 for the refresh token")
    try:
        c.refresh_token(metadata["token_endpoint"], refresh_token=t4["refresh_token"])
        check(False, "refresh after revocation is refused")
    except OAuthError as error:
        check(error.error == "invalid_grant", "refresh after revocation: invalid_grant")

    # 4b. "Only this inbox" on the consent page: the token lists and opens that inbox alone; the default grant
    # reaches every inbox the owner holds, the one created here included.
    def agents(token):
        answer = httpx.get(base + "/api/v1/agents", headers={"Authorization": "Bearer " + token["access_token"]})
        return [agent["accountId"] for agent in answer.json()["agents"]]
    t_one, _ = flow(client(), new_inbox="authlib-only", reach="inbox")
    t_all, _ = flow(client())
    only, every = agents(t_one), agents(t_all)
    check(len(only) == 1 and len(every) >= 2 and set(only) < set(every),
          "consent, only this inbox: /api/v1/agents lists that inbox alone; the default grant lists every inbox")
    other = next(account for account in every if account not in only)
    jmap_get = {"using": ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail"],
                "methodCalls": [["Mailbox/get", {}, "m"]]}
    def jmap_status(token, account):
        return httpx.post(base + "/jmap", json=jmap_get, headers={
            "Authorization": "Bearer " + token["access_token"], "X-Atomic-Account-Id": account}).status_code
    check(jmap_status(t_one, only[0]) == 200 and jmap_status(t_one, other) == 403
          and jmap_status(t_all, other) == 200,
          "consent, only this inbox: JMAP opens that inbox, 403 for the owner's other; the default grant opens both")

    # 5. The person narrows to mail.read on the consent page; then denies.
    c = client()
    t5, _ = flow(c, scopes=["mail.read"])
    check(t5["scope"] == "mail.read", "consent narrowed to mail.read: the token says mail.read")
    # authlib sends its client's scope on every refresh (here both): a scope wider than the person granted is
    # invalid_scope (contract 1.4, RFC 6749 section 6), so the app refreshes with the scope its token came with.
    try:
        c.refresh_token(metadata["token_endpoint"], refresh_token=t5["refresh_token"])
        check(False, "authlib's default refresh scope, wider than the grant, is refused")
    except OAuthError as error:
        check(error.error == "invalid_scope", "error table, invalid_scope: authlib's default scope on a narrowed grant")
    narrower = c.refresh_token(metadata["token_endpoint"], refresh_token=t5["refresh_token"], scope=t5["scope"])
    check(narrower["scope"] == "mail.read", "refresh with the granted scope keeps mail.read")
    try:
        c.refresh_token(metadata["token_endpoint"], refresh_token=narrower["refresh_token"],
                        scope="mail.read mail.send")
        check(False, "a wider scope on refresh is refused")
    except OAuthError as error:
        check(error.error == "invalid_scope", "error table, invalid_scope: a wider scope on refresh")
    url, state = client().create_authorization_url(metadata["authorization_endpoint"], code_verifier=generate_token(64),
                                                   resource=jmap)
    denied = query(driver.authorize(url, EMAIL, PASSWORD, decision="deny"))
    check(denied.get("error") == "access_denied" and denied.get("state") == state and denied.get("iss") == base,
          "deny: access_denied with state and iss")

    # 6. The contract's error table, the authorization server's rows.
    def authorize_error(**changes):
        parameters = {"response_type": "code", "client_id": client_id, "redirect_uri": CALLBACK,
                      "scope": "mail.read", "resource": jmap, "state": "s1",
                      "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}
        parameters.update(changes)
        parameters = {k: v for k, v in parameters.items() if v is not None}
        status, location, html = driver.request("GET", "/oauth/authorize?" + urllib.parse.urlencode(parameters))
        return status, location and query(location), html

    for name, changes in (("resource", {"resource": None}), ("state", {"state": None}),
                          ("code_challenge", {"code_challenge": None}),
                          ("method plain", {"code_challenge_method": "plain"}),
                          ("resource with a trailing slash", {"resource": jmap + "/"})):
        status, location, html = authorize_error(**changes)
        check(status == 400 and not location and "(invalid_request)" in html,
              f"error table, invalid_request: missing or bad {name} (a 400 page: no open redirect, RFC 9700 4.11.2)")
    status, location, html = authorize_error(scope="mail.read mail.delete")
    check(status == 400 and not location and "(invalid_scope)" in html,
          "error table, invalid_scope: unknown scope (a 400 page)")
    for name, changes in (("unknown client_id", {"client_id": "nobody"}),
                          ("redirect_uri prefix match", {"redirect_uri": CALLBACK + "/x"})):
        status, location, html = authorize_error(**changes)
        check(status == 400 and not location and "<html" in html, f"authorize: {name} is a 400 page, no redirect")
    check(driver.request("POST", "/oauth/authorize", {"client_id": client_id})[0] == 404, "POST /oauth/authorize: 404")
    unknown = httpx.post(metadata["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": "x",
                                                           "client_id": "nobody"})
    check(unknown.status_code == 400 and unknown.json()["error"] == "invalid_client",
          "error table, invalid_client: unknown client_id is 400")
    c = client()
    verifier = generate_token(64)
    url, state = c.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, resource=jmap)
    code = query(driver.authorize(url, EMAIL, PASSWORD))["code"]
    mismatch = httpx.post(metadata["token_endpoint"], data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK + "?x=1", "client_id": client_id,
        "code_verifier": verifier})
    check(mismatch.json().get("error") == "invalid_grant", "error table, invalid_grant: redirect_uri mismatch")
    target = httpx.post(metadata["token_endpoint"], data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "client_id": client_id,
        "code_verifier": verifier, "resource": base + "/mcp"})
    check(target.json().get("error") == "invalid_target", "token: another resource than the grant's is invalid_target")
    good = httpx.post(metadata["token_endpoint"], data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "client_id": client_id,
        "code_verifier": verifier})
    check(good.status_code == 200 and good.headers.get("Cache-Control") == "no-store",
          "token: the code still works after refused attempts; Cache-Control: no-store")


if __name__ == "__main__":
    install()
    with postern({"POSTERN_OAUTH_REFRESH_RACE_SECONDS": "0", "POSTERN_OAUTH_REFRESH_RETRY_SECONDS": "0"}, owners=[(EMAIL, PASSWORD)]) as server:
        main(server)
    check.finish("test_oauth_authlib")
