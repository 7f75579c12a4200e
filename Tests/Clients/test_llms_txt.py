"""Follows /llms.txt alone, as an agent would: reads each API's section, takes its curl lines (method, URL, headers,
body), fills their <placeholders> from earlier answers and from what the section says to compute (the proofs of
work, whose rules and salt it gives), and runs each flow against a real server. Nothing about the APIs is known to
this script beyond the placeholders' names.
"""

import base64
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, http, postern

check = Checks()


def sections(text):
    """{second-level heading: its text}."""
    found, name = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            name = line[3:].strip()
            found[name] = []
        elif name:
            found[name].append(line)
    return {k: "\n".join(v) for k, v in found.items()}


def curl_lines(section):
    """Each curl command of the section's ```bash blocks as (method, url, headers, body text)."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", section, re.S):
        for command in re.sub(r"\\\n\s*", " ", block).splitlines():
            words = shlex.split(command)
            if not words or words[0] != "curl":
                continue
            method, url, headers, body = "GET", None, {}, None
            i = 1
            while i < len(words):
                word = words[i]
                if word == "-X":
                    method, i = words[i + 1], i + 1
                elif word == "-H":
                    name, _, value = words[i + 1].partition(":")
                    headers[name.strip()], i = value.strip(), i + 1
                elif word == "-d":
                    # Several -d are joined with & and, without a Content-Type, sent as a form, as curl does.
                    body = words[i + 1] if body is None else body + "&" + words[i + 1]
                    headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
                    i += 1
                elif word == "-u":
                    headers["-u"], i = words[i + 1], i + 1
                elif not word.startswith("-"):
                    url = word
                i += 1
            if body is not None and method == "GET":
                method = "POST"
            commands.append((method, url, headers, body))
    return commands


def run(command, values):
    """Runs one curl line with its placeholders filled from `values`."""
    method, url, headers, body = command

    def fill(text):
        def value(match):
            if match.group(1) not in values:
                raise KeyError(f"no value for <{match.group(1)}> in {text}")
            return values[match.group(1)]
        return re.sub(r"<([A-Za-z0-9_ ]+)>", value, text) if text else text

    filled = {k: fill(v) for k, v in headers.items()}
    if "-u" in filled:  # curl -u user:password is HTTP Basic
        filled["Authorization"] = "Basic " + base64.b64encode(filled.pop("-u").encode()).decode()
    data = fill(body).encode() if body is not None else None
    return http("", method, fill(url), data, headers=filled)


def bearer(head):
    value = head.get("Authorization", "")
    return value.split(" ", 1)[1] if value.lower().startswith("bearer ") else None


def agent(section):
    lines = curl_lines(section)
    check(len(lines) == 4, "agent: four curl lines (challenge, signup, login, capability)")
    salt = re.search(r"Salt text: `([^`]+)`", section).group(1)

    def solve():
        status, head, body = run(lines[0], {})
        token = bearer(head)
        claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        nonce = 0
        while True:  # the section's rule: scrypt(UTF-8("<challenge>:<nonce>"), UTF-8(salt)) with `difficulty` zero bits
            digest = hashlib.scrypt(f"{claims['jti']}:{nonce}".encode(), salt=salt.encode(), n=16384, r=8, p=1, dklen=64)
            if int.from_bytes(digest, "big") >> (512 - claims["difficulty"]) == 0:
                return {"challenge JWT": token, "128 hex": digest.hex(), "nonce": str(nonce)}
            nonce += 1

    status, head, body = run(lines[1], solve())
    check(status == 201 and body.get("apiKey"), f"agent: signup with the section's curl line ({status})")
    values = {"api key": body.get("apiKey", "")} | solve()
    status, head, body = run(lines[2], values)
    session = bearer(head)
    check(status == 200 and session, f"agent: login with the API key ({status})")
    status, head, body = run(lines[3], {"session JWT": session or ""})
    check(status == 200 and bearer(head), f"agent: capability ({status})")
    return bearer(head) or "", values["api key"]


def mail(section, capability):
    """The agent's JMAP lines: the session gives the account id, the capability's inboxId the address; it mails
    itself and reads the message back."""
    lines = curl_lines(section)
    check(len(lines) == 3, "mail: three curl lines (session, send, read)")
    status, _, session = run(lines[0], {"capability JWT": capability})
    account = (session or {}).get("primaryAccounts", {}).get("urn:ietf:params:jmap:mail", "")
    check(status == 200 and account, f"mail: the JMAP session ({status})")
    address = json.loads(base64.urlsafe_b64decode(capability.split(".")[1] + "=="))["inboxId"]
    values = {"capability JWT": capability, "account id": account, "your address": address, "recipient": address}
    status, _, sent = run(lines[1], values)
    answers = [name for name, _, _ in (sent or {}).get("methodResponses", [])]
    check(status == 200 and answers == ["Email/set", "EmailSubmission/set"], f"mail: send to itself ({answers})")
    status, _, read = run(lines[2], values)
    found = (read or {}).get("methodResponses", [[None, {}]])[-1][1].get("list", [])
    check(status == 200 and any(m.get("subject") == "Hello" for m in found), "mail: the inbox has it")


def mailbox(section):
    lines = curl_lines(section)
    check(len(lines) == 5, "mailbox: five curl lines (challenge, create, token, account, messages)")
    status, _, challenge = run(lines[0], {})
    nonce = 0  # the section's rule: SHA-256(UTF-8(salt) + UTF-8(nonce)) with `difficulty` leading zero bits
    while int.from_bytes(hashlib.sha256((challenge["salt"] + str(nonce)).encode()).digest(), "big") >> (
            256 - challenge["difficulty"]):
        nonce += 1
    values = {"password": "guide-secret", "challenge id": challenge["id"], "nonce": str(nonce)}
    status, _, created = run(lines[1], values)
    check(status == 201, f"mailbox: create the account ({status} {created})")
    status, _, signed = run(lines[2], values)
    check(status == 200 and signed.get("id") == created.get("id"), f"mailbox: sign in ({status})")
    values |= {"account id": signed.get("id", ""), "token": signed.get("token", "")}
    status, _, account = run(lines[3], values)
    check(status == 200 and account.get("address") == created.get("address"), f"mailbox: account info ({status})")
    status, _, messages = run(lines[4], values)
    check(status == 200 and messages.get("messages") == [], f"mailbox: messages ({status})")


def remote(section, base):
    lines = curl_lines(section)
    check(len(lines) == 4, "remote hash: four curl lines (register, login, validate, logout)")
    # The section: step 1 says /example.txt serves a hash of `test123`; this instance lets hash URLs reach loopback.
    example = re.search(r"`GET (\S+/example\.txt)` shows one \(of `(\w+)`\)", section)
    values = {"hash URL": example.group(1), "password": example.group(2)}
    status, _, body = run(lines[0], values)
    check(status == 201, f"remote hash: register ({status} {body})")
    status, _, body = run(lines[1], values)
    check(status == 200 and body.get("token"), f"remote hash: login ({status})")
    values["token"] = body.get("token", "")
    status, _, body = run(lines[2], values)
    check(status == 200 and body.get("valid") is True, f"remote hash: validate ({status})")
    status, _, body = run(lines[3], values)
    check(status == 200 and body.get("success") is True, f"remote hash: logout ({status})")
    status, _, body = run(lines[2], values)
    check(status == 401, f"remote hash: the token is refused after logout ({status})")


def mcp(section, base, api_key):
    config = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    server = next(iter(config["mcpServers"].values()))
    check(server["url"] == base + "/mcp" and server["headers"]["Authorization"] == "Bearer <api key>",
          "mcp: the host JSON names this server's /mcp and the key header")
    lines = curl_lines(section)
    check(len(lines) == 1, "mcp: one curl line (initialize)")
    status, head, body = run(lines[0], {"api key": api_key})
    check(status == 200 and head.get("Mcp-Session-Id") and body["result"]["serverInfo"]["name"] == "postern",
          f"mcp: initialize with the section's curl line opens a session ({status})")
    binary = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    check(body["result"]["serverInfo"]["version"] == version,
          f"mcp: serverInfo names the release `postern --version` prints ({body['result']['serverInfo']}, {version})")


def oauth(section, base, capability):
    lines = curl_lines(section)
    check(len(lines) == 8, "oauth: eight curl lines (metadata, register, revoke, client credentials, the device "
          "flow's register, device authorization, poll, and token exchange)")
    status, _, metadata = run(lines[0], {})
    check(status == 200 and metadata["issuer"] == base and metadata["registration_endpoint"] == base + "/oauth/register",
          f"oauth: the metadata names this server ({status})")
    status, _, client = run(lines[1], {})
    check(status == 201 and client.get("client_id") and client.get("token_endpoint_auth_method") == "none",
          f"oauth: register with the section's curl line ({status})")
    status, _, _ = run(lines[2], {"client id": client["client_id"], "token": "not-a-token"})
    check(status == 200, f"oauth: revoke answers 200 for an unknown token ({status})")
    # The client credentials line, with a client the operator makes for the agent's inbox.
    inbox = json.loads(base64.urlsafe_b64decode(capability.split(".")[1] + "=="))["inboxId"]
    binary = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
    made = subprocess.run([binary, "oauth", "client", "create", "--data-dir", base.data, "--name", "llms",
                           "--inbox", inbox], capture_output=True, text=True)
    fields = dict(line.split(": ", 1) for line in made.stdout.splitlines() if line.startswith("client_"))
    check(made.returncode == 0 and "client_id" in fields, f"oauth: a client for the agent's inbox ({made.stderr})")
    status, _, token = run(lines[3], {"client_id": fields.get("client_id", ""),
                                      "client_secret": fields.get("client_secret", "").split("  ", 1)[0]})
    check(status == 200 and token.get("scope") == "mail.read" and "refresh_token" not in token,
          f"oauth: the client credentials line gets a mail.read token ({status})")
    # The device flow (RFC 8628): a client for it, a code, and a poll that waits for the owner.
    status, _, device = run(lines[4], {})
    check(status == 201 and "urn:ietf:params:oauth:grant-type:device_code" in device.get("grant_types", []),
          f"oauth: register a device-flow client with the section's line ({status})")
    status, _, started = run(lines[5], {"client id": device.get("client_id", "")})
    check(status == 200 and re.fullmatch(r"[B-Z]{4}-[B-Z]{4}", started.get("user_code", "")) is not None,
          f"oauth: the device authorization line gets a user code ({status} {started})")
    status, _, polled = run(lines[6], {"client id": device.get("client_id", ""),
                                       "device code": started.get("device_code", "")})
    check(status == 400 and polled.get("error") == "authorization_pending",
          f"oauth: the poll line answers authorization_pending until the owner approves ({status} {polled})")
    # The token exchange line reaches the grant: a subject that is no owner's token is RFC 8693's invalid_request.
    status, _, refused = run(lines[7], {"agent client_id": fields.get("client_id", ""),
                                        "secret": fields.get("client_secret", "").split("  ", 1)[0],
                                        "owner access token": "not-a-token"})
    check(status == 400 and refused.get("error") == "invalid_request",
          f"oauth: the token exchange line refuses a subject that is no owner's token ({status} {refused})")


def oauth_resource(section, base):
    lines = curl_lines(section)
    check(len(lines) == 2, "oauth resource: two curl lines (the owner's agents, JMAP with X-Atomic-Account-Id)")
    # Shaped as an access token (typ at+jwt), signed by nobody: both lines must refuse it as the section says.
    header = base64.urlsafe_b64encode(b'{"alg":"EdDSA","typ":"at+jwt","kid":"none"}').rstrip(b"=").decode()
    forged = {"access token": header + ".e30.c2ln", "accountId": "00000000-0000-4000-8000-000000000000"}
    for line, what in zip(lines, ("/api/v1/agents", "JMAP")):
        status, head, body = run(line, forged)
        check(status == 401 and isinstance(body, dict) and body.get("error") == "invalid_token"
              and head.get("WWW-Authenticate") == 'Bearer error="invalid_token"',
              f"oauth resource: {what} refuses a forged access token with invalid_token ({status})")


def quick_start(section, base):
    """The first section: the one command that signs an agent up here, and the MCP host JSON, as pasted."""
    check(f"postern agent signup --url {base} --username" in section,
          "quick start: `postern agent signup` for this server")
    block = re.search(r"```json\n(.*?)```", section, re.S)
    host = json.loads(block.group(1)) if block else {}
    server = host.get("mcpServers", {}).get("postern", {})
    check(server.get("url") == base + "/mcp" and server.get("headers", {}).get("Authorization") == "Bearer <api key>",
          f"quick start: the MCP host JSON parses and names {base}/mcp ({server})")


def main():
    env = {"POSTERN_AGENT_POW_DIFFICULTY": "3", "POSTERN_AGENT_POW_DYNAMIC": "off",
           "POSTERN_MAILBOX_POW_DIFFICULTY": "8", "POSTERN_REMOTE_HASH_ALLOW_PRIVATE": "true"}
    with postern(env) as base:
        status, _, text = http(base, "GET", "/llms.txt")
        check(status == 200 and text.startswith("# Postern"), "GET /llms.txt")
        parts = sections(text)
        quick_start(parts.pop("Quick start for an agent", ""), base)
        names = list(parts)
        check(len(names) == 7, f"three API sections, the mail, MCP, OAuth and OAuth-token sections: {names}")
        check(f"{base}/openapi.json" in text, "links to /openapi.json")
        capability, api_key = agent(parts[names[0]])
        mailbox(parts[names[1]])
        remote(parts[names[2]], base)
        mail(parts[names[3]], capability)
        mcp(parts["MCP server (Atomic Mail compatible)"], base, api_key)
        oauth_resource(parts["Using an OAuth access token"], base)
        oauth(parts["OAuth for apps"], base, capability)
    check.finish("llms.txt")


if __name__ == "__main__":
    main()
