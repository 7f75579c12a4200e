"""The `mcp` SDK (PyPI), unmodified, signing in with OAuth against a real Postern (issue 29's OAuth half, contract 2.2):
a 401 from /mcp leads it to the protected-resource metadata, the authorization server's metadata, dynamic
registration, then authorize (PKCE S256, resource = <base>/mcp), where this test plays the browser with the form
driver (sign-in, consent creating an inbox); it exchanges the code, lists the tools, calls list_agents and read_inbox,
and, with its access token made stale, refreshes (rotation seen by a real client) and keeps its session. A second
run consents to mail.read only: send_email is refused with HTTP 403 insufficient_scope, on which the SDK re-authorizes
for mail.send (step-up) and the send goes through. The resource side's 401s follow: the grant revoked, the token
stops working at /jmap and /api/v1/agents at once.

Self-contained: installs mcp into .build/client-sdks/ (as test_mcp_sdk.py), creates an owner with `postern owner
create`, runs against .build/debug/postern (or $POSTERN_BIN).
"""

import asyncio
import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, FormDriver, http, postern
from test_mcp_sdk import install, payload

EMAIL, PASSWORD = "owner@example.com", "owner-password-1"
CALLBACK = "http://127.0.0.1:53682/callback"  # nothing listens: the driver reads the redirect's Location
check = Checks()


class Store:
    """The SDK's TokenStorage: four async methods over two fields."""
    tokens = client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, info):
        self.client_info = info


class Browser:
    """The SDK's redirect and callback handlers: the form driver signs in and consents (in a thread: it blocks)."""

    def __init__(self, base, **consent):
        self.driver, self.consent, self.urls, self.result = FormDriver(base), consent, [], None

    async def redirect_handler(self, url):
        from mcp.client.auth import AuthorizationCodeResult
        self.urls.append(url)
        location = await asyncio.to_thread(self.driver.authorize, url, EMAIL, PASSWORD, **self.consent)
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        check("code" in query, f"authorize redirected back with a code ({location[:80]})")
        self.result = AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    async def callback_handler(self):
        return self.result


async def main_async(base):
    import httpx2
    from mcp import Client
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import OAuthClientMetadata
    from pydantic import AnyUrl

    mcp = base + "/mcp"
    seen = []

    async def hook(request):
        seen.append((request.method, request.url.path))

    def provider(store, browser, name):
        return OAuthClientProvider(
            server_url=mcp, storage=store, redirect_handler=browser.redirect_handler,
            callback_handler=browser.callback_handler,
            client_metadata=OAuthClientMetadata(client_name=name, redirect_uris=[AnyUrl(CALLBACK)]))

    # 1. Discovery, registration, authorize with a new inbox, tools; then a refresh within the same session.
    store, browser = Store(), Browser(base, new_inbox="sdk-oauth")
    oauth = provider(store, browser, "sdk-e2e")
    async with httpx2.AsyncClient(auth=oauth, timeout=60, event_hooks={"request": [hook]}) as client:
        async with Client(streamable_http_client(mcp, http_client=client), mode="legacy") as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            check({"read_inbox", "send_email", "list_agents", "search", "fetch", "help"} <= names,
                  "OAuth: tools/list after the whole flow")
            agents = payload(await session.call_tool("list_agents", {}))["agents"]
            check([a["email"] for a in agents] == ["sdk-oauth@agents.localhost"] and agents[0]["default"],
                  "list_agents: the inbox created at consent, the grant's default")
            account = agents[0]["accountId"]
            refresh, access = store.tokens.refresh_token, store.tokens.access_token
            oauth.context.token_expiry_time = time.time() - 1  # the SDK refreshes before its next request
            inbox = payload(await session.call_tool("read_inbox", {"limit": 1}))
            check(isinstance(inbox, dict) and inbox.get("inbox") == "sdk-oauth@agents.localhost",
                  "read_inbox defaults to the grant's inbox")
            check(store.tokens.refresh_token != refresh and store.tokens.access_token != access,
                  "refresh: the SDK got a rotated refresh token and a new access token, and the session went on")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(browser.urls[0]).query))
    check(query.get("resource") == mcp and query.get("code_challenge_method") == "S256",
          "authorize: resource is the MCP URL, PKCE S256")
    posts = [path for method, path in seen if method == "POST"]
    check(posts[:2] == ["/mcp", "/oauth/register"], f"401, then discovery, then registration ({posts[:3]})")

    # The same access token at the other resources: /api/v1/agents takes it; JMAP refuses an /mcp token.
    token = store.tokens.access_token
    status, _, body = http(base, "GET", "/api/v1/agents", bearer=token)
    check(status == 200 and [a["accountId"] for a in body["agents"]] == [account], "/api/v1/agents with the MCP token")
    status, head, body = http(base, "POST", "/jmap", {"using": ["urn:ietf:params:jmap:core"], "methodCalls": []},
                              headers={"X-Atomic-Account-Id": account}, bearer=token)
    check(status == 401 and body.get("error") == "invalid_token", "JMAP refuses a token for the /mcp audience")

    # 2. Consent narrowed to mail.read: send_email is HTTP 403 insufficient_scope; the SDK steps up and sends.
    store, browser = Store(), Browser(base, scopes=["mail.read"])
    step_up = provider(store, browser, "sdk-step-up")
    async with httpx2.AsyncClient(auth=step_up, timeout=60) as client:
        async with Client(streamable_http_client(mcp, http_client=client), mode="legacy") as session:
            check(store.tokens.scope == "mail.read", "consent narrowed to mail.read")
            browser.consent = {}  # the second consent keeps the boxes the SDK asked for
            sent = payload(await session.call_tool("send_email", {
                "to": "sdk-oauth@agents.localhost", "subject": "step-up", "body": "hi"}))
            check(len(browser.urls) == 2 and "mail.send" in store.tokens.scope,
                  f"403 insufficient_scope: the SDK authorized again for mail.send ({store.tokens.scope})")
            check(isinstance(sent, dict) and sent.get("sent") is True, "send_email went through after the step-up")

    # 3. Revoked: the access token stops at once.
    status, _, _ = http(base, "POST", "/oauth/revoke", urllib.parse.urlencode({
        "token": store.tokens.refresh_token, "client_id": store.client_info.client_id}).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"})
    status, head, body = http(base, "GET", "/api/v1/agents", bearer=store.tokens.access_token)
    check(status == 401 and body.get("error") == "invalid_token"
          and head.get("WWW-Authenticate") == 'Bearer error="invalid_token"',
          "revoked: the grant's access token is refused at once")


def main():
    install()
    with postern(owners=[(EMAIL, PASSWORD)]) as base:
        asyncio.run(main_async(base))
    check.finish("test_mcp_oauth")


if __name__ == "__main__":
    main()
