"""authlib (PyPI), unmodified, as an RFC 8693 token exchange client against a real Postern (issue 86 item 3): an
owner approves an app through the code flow (the sign-in and consent forms, `oauth_form_driver`'s browser-less
driver), allows an agent client (`postern oauth client create`) to act for them on /owner/actors, and the agent,
authenticated with client_secret_basic, trades the owner's access token for one of its own with authlib's
`fetch_token(grant_type="urn:ietf:params:oauth:grant-type:token-exchange", subject_token=..., ...)`. The minted
token's claims (sub the owner, act the agent, the narrower scope, the subject's audience, exp no later), the metadata
listing the grant, introspection's `act`, JMAP opening the inbox with it; refusals through authlib (a wider scope, an
agent the owner did not allow, another audience); then the owner revokes the app's grant on /owner and the exchanged
token is at once inactive at introspection and refused by JMAP.

Self-contained: installs authlib and httpx into .build/client-sdks/ (as test_oauth_authlib.py), creates an owner with
`postern owner create`, runs against .build/debug/postern (or $POSTERN_BIN).
"""

import base64
import json
import os
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, FormDriver, http, install_packages, postern

VERSION = "1.9.10"
EMAIL, PASSWORD = "owner@example.com", "owner-password-1"
CALLBACK = "http://127.0.0.1:8765/callback"
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
BINARY = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
check = Checks()


def install():
    install_packages("authlib-" + VERSION, ["authlib==" + VERSION, "httpx"], ["authlib", "httpx"])


def claims(token):
    """The payload of a JWT, unchecked (the test reads what was minted)."""
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def create_client(base, *arguments):
    """(client_id, client_secret) of `postern oauth client create` with `arguments`."""
    result = subprocess.run([BINARY, "oauth", "client", "create", "--data-dir", base.data, *arguments],
                            capture_output=True, text=True)
    check(result.returncode == 0, f"oauth client create {' '.join(arguments[:4])} ({result.stderr.strip()[:200]})")
    fields = dict(line.split(": ", 1) for line in result.stdout.splitlines() if line.startswith("client_"))
    return fields["client_id"], fields.get("client_secret", "").split("  ", 1)[0]


def owner_post(driver, page, action, fields):
    """Posts the form of `page` whose action is `action` with its hidden fields (the CSRF token) and `fields`."""
    status, _, html = driver.request("GET", page)
    check(status == 200, f"GET {page}: {status}")
    form = driver.forms(html).form(action)
    return driver.request("POST", action, driver.hidden(form) | fields)


def main(base):
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # http on 127.0.0.1
    import httpx
    from authlib.common.security import generate_token
    from authlib.integrations.base_client.errors import OAuthError
    from authlib.integrations.httpx_client import OAuth2Client

    jmap = base + "/jmap"
    _, _, metadata = http(base, "GET", "/.well-known/oauth-authorization-server")
    check(EXCHANGE in metadata["grant_types_supported"], "metadata lists the token exchange grant")
    check("urn:ietf:params:oauth:grant-type:jwt-bearer" not in metadata["grant_types_supported"],
          "metadata does not list the JWT bearer grant, off by default")
    token_endpoint = metadata["token_endpoint"]

    # The owner approves an app (code flow with PKCE through the forms), making an inbox at consent.
    registration = httpx.post(base + "/oauth/register", json={
        "client_name": "owner's app", "redirect_uris": [CALLBACK], "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"], "application_type": "native"})
    app_id = registration.json()["client_id"]
    app = OAuth2Client(client_id=app_id, token_endpoint_auth_method="none", redirect_uri=CALLBACK,
                       scope="mail.read mail.send", code_challenge_method="S256", token_endpoint=token_endpoint)
    driver = FormDriver(base)
    verifier = generate_token(64)
    url, state = app.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier,
                                              resource=jmap)
    callback = driver.authorize(url, EMAIL, PASSWORD, new_inbox="xchg-inbox")
    owner_token = app.fetch_token(authorization_response=callback, state=state, code_verifier=verifier, resource=jmap)
    subject = owner_token["access_token"]
    owner_id = claims(subject)["sub"]
    accounts = httpx.get(base + "/api/v1/agents", headers={"Authorization": "Bearer " + subject}).json()["agents"]
    account = accounts[0]["accountId"]

    # An agent client the operator made, and a resource server that introspects.
    agent_id, agent_secret = create_client(base, "--name", "agent", "--inbox", "xchg-inbox")
    stranger_id, stranger_secret = create_client(base, "--name", "stranger", "--inbox", "xchg-inbox")
    rs = create_client(base, "--name", "resource server", "--introspection")

    def exchange(client_id, secret, **fields):
        agent = OAuth2Client(client_id, secret, token_endpoint_auth_method="client_secret_basic")
        return agent.fetch_token(token_endpoint, grant_type=EXCHANGE, subject_token=subject,
                                 subject_token_type=ACCESS_TOKEN_TYPE, **fields)

    def refused(code, what, client_id, secret, **fields):
        try:
            exchange(client_id, secret, **fields)
            check(False, f"{what} is refused")
        except OAuthError as error:
            check(error.error == code, f"{what}: {code} ({error.error})")

    refused("unauthorized_client", "an agent the owner has not allowed yet", agent_id, agent_secret)
    status, _, _ = owner_post(driver, "/owner/actors", "/owner/actors", {"client_id": agent_id})
    check(status == 201, f"the owner allows the agent on /owner/actors ({status})")
    _, _, page = driver.request("GET", "/owner/actors")
    check(agent_id in page and stranger_id not in page, "/owner/actors lists the allowed agent only")

    # authlib's fetch_token is the RFC 8693 client: the fields go in the form, the client in HTTP Basic.
    token = exchange(agent_id, agent_secret, scope="mail.read")
    minted = claims(token["access_token"])
    check(token.get("issued_token_type") == ACCESS_TOKEN_TYPE and token["token_type"] == "Bearer"
          and "refresh_token" not in token, "the answer: issued_token_type access_token, Bearer, no refresh token")
    check(minted["sub"] == owner_id and minted["client_id"] == agent_id and minted["act"] == {"sub": agent_id},
          f"the token: sub the owner, client_id the agent, act {{sub: agent}} ({minted.get('act')})")
    check(minted["scope"] == "mail.read" and minted["aud"] == jmap and minted["exp"] <= claims(subject)["exp"],
          "the token: the narrower scope, the subject's audience, an exp no later than the subject's")

    refused("invalid_scope", "a scope wider than the subject's", agent_id, agent_secret, scope="mail.read admin")
    refused("invalid_target", "another audience", agent_id, agent_secret, resource=base + "/mcp")
    refused("unauthorized_client", "a client the owner did not allow", stranger_id, stranger_secret)

    def introspect(access):
        answer = httpx.post(base + "/oauth/introspect", data={"token": access}, auth=rs)
        return answer.json()

    answer = introspect(token["access_token"])
    check(answer.get("active") is True and answer.get("act") == {"sub": agent_id} and answer.get("sub") == owner_id
          and answer.get("client_id") == agent_id, f"introspection shows act ({answer})")

    jmap_get = {"using": ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail"],
                "methodCalls": [["Mailbox/get", {}, "m"]]}

    def jmap_status(access):
        return httpx.post(jmap, json=jmap_get, headers={
            "Authorization": "Bearer " + access, "X-Atomic-Account-Id": account}).status_code

    check(jmap_status(token["access_token"]) == 200, "JMAP opens the owner's inbox with the exchanged token")

    # The owner revokes the app's grant on /owner: the exchanged token dies with it, at once: the first requests
    # after the revocation's answer are refused, with no wait between (how long they take is the machine's load, not
    # the rule's: no clock here).
    _, _, home = driver.request("GET", "/owner")
    revoke = next((f["action"] for f in driver.forms(home).forms
                   if f["action"].startswith("/owner/apps/") and f["action"].endswith("/revoke")), None)
    check(revoke is not None, "/owner offers to revoke the app's grant")
    status, _, _ = owner_post(driver, "/owner", revoke, {})
    check(status in (200, 303), f"the owner revokes the grant ({status})")
    answer = introspect(token["access_token"])
    check(answer == {"active": False}, f"introspection: the exchanged token is inactive ({answer})")
    check(jmap_status(token["access_token"]) == 401, "JMAP refuses the exchanged token")
    refused("invalid_request", "exchanging the revoked subject", agent_id, agent_secret)


if __name__ == "__main__":
    install()
    with postern(owners=[(EMAIL, PASSWORD)]) as server:
        main(server)
    check.finish("test_oauth_token_exchange")
