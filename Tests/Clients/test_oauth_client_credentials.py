"""The `mcp` SDK (PyPI), unmodified, with its two client credentials providers (MCP's
`io.modelcontextprotocol/oauth-client-credentials` extension, issue 86): `ClientCredentialsOAuthProvider` with
client_secret_basic and client_secret_post, and `PrivateKeyJWTOAuthProvider` signing RS256 assertions with a key whose
public half the operator registered (`postern oauth client create --auth private_key_jwt --jwks FILE`), each reaching
Postern's /mcp: discovery from the 401, the authorization server's metadata, a client_credentials token for
resource <base>/mcp, initialize (which advertises the extension), tools/list and list_agents showing exactly the inbox
the client was bound to. Then introspection (RFC 7662) with plain HTTP as a resource server would: the token is active
with the client as `sub`; an agent's capability token is active too; a replayed assertion and a wrong secret are
refused with invalid_client; the client revokes its token (RFC 7009) and introspection answers exactly
{"active":false} at once, and /mcp refuses the token.

Self-contained: installs mcp into .build/client-sdks/ (as test_mcp_sdk.py), signs an agent up through the agent
surface, runs against .build/debug/postern (or $POSTERN_BIN).
"""

import asyncio
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, agent_login, agent_signup, http, postern
from test_mcp_oauth import Store
from test_mcp_sdk import install, payload

check = Checks()
BINARY = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))


def create_client(base, *arguments):
    """(client_id, client_secret or None) of `postern oauth client create` with `arguments`."""
    result = subprocess.run([BINARY, "oauth", "client", "create", "--data-dir", base.data, *arguments],
                            capture_output=True, text=True)
    check(result.returncode == 0, f"oauth client create {' '.join(arguments[:4])} ({result.stderr.strip()[:200]})")
    fields = dict(line.split(": ", 1) for line in result.stdout.splitlines() if line.startswith("client_"))
    secret = fields.get("client_secret")
    return fields["client_id"], secret.split("  ", 1)[0] if secret else None


def form(base, path, fields, auth=None):
    """(status, headers, body) of a form POST, with HTTP Basic when `auth` is (id, secret)."""
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if auth:
        pair = urllib.parse.quote(auth[0], safe="") + ":" + urllib.parse.quote(auth[1], safe="")
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    return http(base, "POST", path, urllib.parse.urlencode(fields).encode(), headers=headers)


def rsa_key():
    """(private key PEM, JWKS text) of a new RSA-2048 key with kid `sdk-key`."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.public_key().public_numbers()

    def b64(number):
        raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    jwks = {"keys": [{"kty": "RSA", "kid": "sdk-key", "alg": "RS256", "use": "sig", "n": b64(numbers.n),
                      "e": b64(numbers.e)}]}
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    return pem, json.dumps(jwks)


async def through_mcp(base, provider, store, label, inbox):
    """Connects to /mcp with `provider`; checks the extension, the tools and the one bound inbox."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    mcp = base + "/mcp"
    async with httpx2.AsyncClient(auth=provider, timeout=60) as client:
        async with Client(streamable_http_client(mcp, http_client=client), mode="legacy") as session:
            extensions = session.server_capabilities.extensions or {}
            check("io.modelcontextprotocol/oauth-client-credentials" in extensions,
                  f"{label}: initialize advertises the client credentials extension ({list(extensions)})")
            names = {tool.name for tool in (await session.list_tools()).tools}
            check({"read_inbox", "list_agents"} <= names, f"{label}: tools/list with a client credentials token")
            agents = payload(await session.call_tool("list_agents", {}))["agents"]
            check([a["email"] for a in agents] == [inbox], f"{label}: list_agents is the bound inbox only ({agents})")
            listed = payload(await session.call_tool("read_inbox", {"limit": 1}))
            check(isinstance(listed, dict) and listed.get("inbox") == inbox, f"{label}: read_inbox of the bound inbox")
    check(store.tokens is not None and store.tokens.refresh_token is None,
          f"{label}: a token and no refresh token (RFC 6749 4.4.3)")
    return store.tokens.access_token


async def main_async(base, inbox, api_key):
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider, SignedJWTParameters)

    mcp = base + "/mcp"
    status, _, metadata = http(base, "GET", "/.well-known/oauth-authorization-server")
    check("client_credentials" in metadata["grant_types_supported"]
          and {"client_secret_basic", "private_key_jwt"} <= set(metadata["token_endpoint_auth_methods_supported"])
          and metadata.get("introspection_endpoint") == base + "/oauth/introspect",
          "RFC 8414 metadata lists client_credentials, the methods and the introspection endpoint")

    tokens = {}
    for method in ["client_secret_basic", "client_secret_post"]:
        client_id, secret = create_client(base, "--name", "sdk " + method, "--inbox", inbox, "--auth", method)
        store = Store()
        provider = ClientCredentialsOAuthProvider(
            server_url=mcp, storage=store, client_id=client_id, client_secret=secret,
            token_endpoint_auth_method=method, issuer=base)
        tokens[method] = (await through_mcp(base, provider, store, method, inbox), client_id, secret)

    pem, jwks = rsa_key()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as keys:
        keys.write(jwks)
    jwt_client, none = create_client(base, "--name", "sdk private_key_jwt", "--inbox", inbox, "--auth",
                                     "private_key_jwt", "--jwks", keys.name)
    os.unlink(keys.name)
    check(none is None, "private_key_jwt: no secret is made")
    parameters = SignedJWTParameters(issuer=jwt_client, subject=jwt_client, signing_key=pem, lifetime_seconds=120)
    store = Store()
    provider = PrivateKeyJWTOAuthProvider(
        server_url=mcp, storage=store, client_id=jwt_client,
        assertion_provider=parameters.create_assertion_provider(), issuer=base)
    tokens["private_key_jwt"] = (await through_mcp(base, provider, store, "private_key_jwt", inbox), jwt_client, None)
    # The SDK asks for the scopes the protected resource lists: the client's whole scope here.
    check(store.tokens.scope == "mail.read mail.send", f"private_key_jwt: the scope asked for ({store.tokens.scope})")

    # A replayed assertion is refused: the jti was recorded.
    assertion = await parameters.create_assertion_provider()(base)
    fields = {"grant_type": "client_credentials", "resource": mcp, "client_assertion": assertion,
              "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}
    first, _, _ = form(base, "/oauth/token", fields)
    again, _, body = form(base, "/oauth/token", fields)
    check(first == 200 and again == 400 and body.get("error") == "invalid_client", "a replayed assertion is refused")
    narrow = create_client(base, "--name", "reader", "--inbox", inbox, "--scope", "mail.read")
    wide = {"grant_type": "client_credentials", "resource": mcp, "scope": "mail.read mail.send"}
    status, _, body = form(base, "/oauth/token", wide, auth=narrow)
    check(status == 400 and body.get("error") == "invalid_scope", "a scope wider than the client's is invalid_scope")
    status, _, body = form(base, "/oauth/token", dict(wide, scope="mail.read"), auth=narrow)
    check(status == 200 and body.get("scope") == "mail.read", "the client's own narrower scope is granted")
    access, basic_id, basic_secret = tokens["client_secret_basic"]
    # The same client's token at the other doors: /api/v1/agents lists the bound inbox; JMAP opens it for /jmap.
    status, _, body = http(base, "GET", "/api/v1/agents", bearer=access)
    bound = [agent["accountId"] for agent in body.get("agents", [])] if status == 200 else []
    check(status == 200 and [agent["address"] for agent in body["agents"]] == [inbox],
          f"/api/v1/agents with a client credentials token: the bound inbox ({status})")
    status, _, body = form(base, "/oauth/token", {"grant_type": "client_credentials", "resource": base + "/jmap",
                                                  "scope": "mail.read"}, auth=(basic_id, basic_secret))
    jmap_token = body.get("access_token", "")
    calls = {"using": ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail"],
             "methodCalls": [["Mailbox/get", {}, "0"]]}
    status, _, body = http(base, "POST", "/jmap", calls, headers={"X-Atomic-Account-Id": bound[0] if bound else ""},
                           bearer=jmap_token)
    check(status == 200 and body["methodResponses"][0][0] == "Mailbox/get",
          f"JMAP Mailbox/get on the bound inbox with a /jmap client token ({status})")
    status, _, body = http(base, "POST", "/jmap", calls, headers={"X-Atomic-Account-Id": str(uuid.uuid4())},
                           bearer=jmap_token)
    check(status == 403, f"JMAP refuses an inbox the client is not bound to ({status})")
    status, head, body = form(base, "/oauth/token", {"grant_type": "client_credentials", "resource": mcp},
                              auth=(basic_id, basic_secret + "x"))
    check(status == 401 and body.get("error") == "invalid_client"
          and head.get("WWW-Authenticate", "").startswith("Basic"),
          "a wrong secret over Basic is 401 invalid_client with a challenge")

    # Introspection as a resource server: plain HTTP, Basic.
    rs = create_client(base, "--name", "resource server", "--introspection")
    status, _, answer = form(base, "/oauth/introspect", {"token": access}, auth=rs)
    check(status == 200 and answer.get("active") is True and answer.get("sub") == basic_id
          and answer.get("client_id") == basic_id and answer.get("aud") == mcp
          and answer.get("scope") == "mail.read mail.send" and answer.get("exp", 0) > time.time(),
          f"introspection: the client's token is active, sub the client ({answer})")
    status, _, answer = form(base, "/oauth/introspect", {"token": access}, auth=(basic_id, basic_secret))
    check(status == 403 and answer.get("error") == "unauthorized_client",
          "a client made without --introspection may not introspect")
    status, _, session = agent_login(base, api_key)
    status, head, _ = http(base, "POST", "/api/v1/capability", bearer=session)
    capability = head.get("Authorization", " ").split(" ", 1)[1]
    status, _, answer = form(base, "/oauth/introspect", {"token": capability}, auth=rs)
    check(answer.get("active") is True and answer.get("scope") == "jmap" and answer.get("username") == inbox,
          f"introspection: an agent's capability token is active ({answer})")

    # The client revokes its token: inactive at once, and /mcp refuses it.
    status, _, _ = form(base, "/oauth/revoke", {"token": access}, auth=(basic_id, basic_secret))
    check(status == 200, "RFC 7009 revocation by the client")
    status, _, raw = form(base, "/oauth/introspect", {"token": access}, auth=rs)
    check(status == 200 and raw == {"active": False}, f"revoked: exactly {{\"active\":false}} ({raw})")
    status, _, _ = http(base, "POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        headers={"Accept": "application/json, text/event-stream"}, bearer=access)
    check(status == 401, "revoked: /mcp refuses the token")


def main():
    install()
    with postern() as base:
        username = "cc" + uuid.uuid4().hex[:10]
        status, body, _ = agent_signup(base, username)
        check(status == 201, f"agent signup ({status})")
        asyncio.run(main_async(base, body["inbox"], body["apiKey"]))
    check.finish("test_oauth_client_credentials")


if __name__ == "__main__":
    main()
