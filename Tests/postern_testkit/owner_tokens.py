"""An owner's OAuth access token from Postern's own /oauth/token, the way an app gets one, for the mail doors that
take it (IMAP's AUTHENTICATE and POP3's AUTH OAUTHBEARER/XOAUTH2). Standard library only.

    access, address, refresh = owner_token(server, "owner@example.com", "owner-password", "mail.read")
"""

import base64
import hashlib
import secrets
import urllib.parse

from .calls import http
from .forms import FormDriver


def owner_token(server, email, password, scope, resource_path="/jmap"):
    """Register a client, authorize (sign-in and consent through the forms, a new inbox made there), exchange the code
    and its PKCE verifier. (access token, the new inbox's address, refresh token or None)."""
    callback = "http://127.0.0.1:9/cb"
    status, _, registered = http(server, "POST", "/oauth/register", {"redirect_uris": [callback]})
    if status not in (200, 201):
        raise AssertionError(f"POST /oauth/register: {status} {registered}")
    client_id = registered["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    resource = server + resource_path
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": callback, "scope": scope,
        "resource": resource, "state": "mail", "code_challenge": challenge, "code_challenge_method": "S256"})
    inbox = "mail" + secrets.token_hex(4)
    location = FormDriver(server).authorize("/oauth/authorize?" + query, email, password, new_inbox=inbox)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query).get("code", [""])[0]
    status, _, token = http(server, "POST", "/oauth/token", urllib.parse.urlencode({
        "grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client_id,
        "code_verifier": verifier, "resource": resource}).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"})
    if status != 200:
        raise AssertionError(f"/oauth/token: an access token for {scope} at {resource_path}: {status} {token}")
    access = token["access_token"]
    _, _, agents = http(server, "GET", "/api/v1/agents", bearer=access)
    address = next(a["address"] for a in agents["agents"] if a["inboxId"] == inbox or a["address"].startswith(inbox + "@"))
    return access, address, token.get("refresh_token")


def refused_tokens(server, email, password, access):
    """The tokens a mail door must refuse, each with what it is and the status of RFC 7628's error JSON for it: one for
    another resource (/mcp), one without mail.read, and `access` forged. [(token, what, status)]."""
    mcp, _, _ = owner_token(server, email, password, "mail.read", resource_path="/mcp")
    send_only, _, _ = owner_token(server, email, password, "mail.send")
    return [(mcp, "a token for /mcp (another resource)", "invalid_token"),
            (send_only, "a mail.send-only token", "insufficient_scope"),
            (access + "x", "a forged token", "invalid_token")]
