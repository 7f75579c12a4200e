"""The `mcp` SDK (PyPI), unmodified, against a real Postern's /mcp with an agent's inbox API key: each key spelling
(Authorization: Bearer, X-API-Key, Authorization: ApiKey) connects and lists the tools (ClientSession's initialize,
and Client's auto mode, which probes server/discover first), whose input schemas are valid
JSON Schema (the `jsonschema` package checks them); every tool is called; bad input (an unknown tool, wrong argument
types, oversized arguments, another key's session id) gets a JSON-RPC error and sends nothing. docs/api/mcp.md's
example runs as written first.

Self-contained: installs mcp and jsonschema into .build/client-sdks/ (pip --target), signs two agents up through the
agent surface (proof of work at difficulty 2), runs against .build/debug/postern (or $POSTERN_BIN).
"""

import asyncio
import base64
import contextlib
import io
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, agent_signup, http, install_packages, postern

VERSION = "2.3.0"
check = Checks()


def payload(result):
    """A tool result's text, parsed as JSON when it is JSON."""
    text = result.content[0].text if result.content else ""
    try:
        return json.loads(text)
    except ValueError:
        return text


UNTRUSTED = re.compile(r"<<<UNTRUSTED EMAIL CONTENT ([0-9a-f]{16})(?:: [^>]*>>>\n(.*)\n|>>>(.*))"
                       r"<<<END UNTRUSTED EMAIL CONTENT \1>>>", re.S)


def untrusted(value):
    """The text inside the untrusted-content delimiter when `value` is wholly one delimited text whose tag occurs
    only at its opening and closing; None otherwise."""
    found = UNTRUSTED.fullmatch(value) if isinstance(value, str) else None
    if not found or value.count(found.group(1)) != 2:
        return None
    return found.group(2) if found.group(2) is not None else found.group(3)


def install():
    install_packages("mcp-" + VERSION, ["mcp==" + VERSION, "jsonschema"], ["mcp", "jsonschema"])


def signup(base, username):
    """The API key of a new agent `username` (challenge, proof of work, signup)."""
    status, body, _ = agent_signup(base, username)
    check(status == 201 and body.get("apiKey"), f"signup {username} ({status})")
    return body["apiKey"]


async def main_async(base, alice_key, bob_key):
    import httpx2
    import jsonschema
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    url = base + "/mcp"

    def session(headers):
        return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=60))

    spellings = {"Authorization: Bearer": {"Authorization": "Bearer " + alice_key},
                 "X-API-Key": {"X-API-Key": alice_key},
                 "Authorization: ApiKey": {"Authorization": "ApiKey " + alice_key}}
    for name, headers in spellings.items():
        async with session(headers) as (read, write, *_):
            async with ClientSession(read, write) as client:
                init = await client.initialize()
                tools = (await client.list_tools()).tools
                check(init.protocol_version in ("2025-11-25", "2025-06-18"),
                      f"{name}: initialize negotiates {init.protocol_version}")
                names = [tool.name for tool in tools]
                check(len(names) == 14 and "read_inbox" in names and "wait_for_message" in names,
                      f"{name}: tools/list names the tools ({len(names)})")
    # The SDK's high-level Client (mode "auto") probes the 2026-07-28 server/discover first; the -32022 naming the
    # handshake versions sends it back to initialize.
    from mcp import Client
    async with Client(session({"X-API-Key": alice_key})) as client:
        listed = await client.list_tools()
        check(client.protocol_version == "2025-11-25" and len(listed.tools) == 14,
              f"Client(mode='auto'): probe, fall back to initialize ({client.protocol_version})")
    valid = True
    for tool in tools:
        try:
            jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        except jsonschema.SchemaError as error:
            valid = False
            print(tool.name, error)
    check(valid, "every inputSchema is valid JSON Schema (2020-12)")

    alice_inbox = "alice-mcp@agents.localhost"
    bob_inbox = "bob-mcp@agents.localhost"
    async with session({"Authorization": "Bearer " + alice_key}) as (read, write, *_), \
            session({"X-API-Key": bob_key}) as (bob_read, bob_write, *_):
        async with ClientSession(read, write) as alice, ClientSession(bob_read, bob_write) as bob:
            await alice.initialize()
            await bob.initialize()
            listed = payload(await alice.call_tool("list_agents", {}))
            check(listed["agents"][0]["email"] == alice_inbox, "list_agents: the key's inbox")
            attachment = base64.b64encode(b"hello attachment").decode()
            sent = await alice.call_tool("send_email", {
                "to": bob_inbox, "subject": "Sign-up code 4242", "body": "Your code is 4242.",
                "cc": [alice_inbox], "bcc": ["carol@elsewhere.example"],
                "attachments": [{"filename": "note.txt", "content_type": "text/plain", "content_base64": attachment}]})
            delivery = payload(sent).get("delivery", {}) if not sent.is_error else {}
            check(not sent.is_error and delivery.get(bob_inbox, {}).get("delivered") == "yes",
                  f"send_email: delivered to bob, cc and bcc too ({sorted(delivery)})")
            # Held mail is not "sent": the bcc on another domain stays on this server (delivery is off here), and the
            # result says so per recipient, with the reason in words and as a code.
            outcomes = {r["address"]: r for r in payload(sent).get("recipients", [])} if not sent.is_error else {}
            check(payload(sent).get("sent") is False
                  and outcomes.get(bob_inbox, {}).get("status") == "delivered"
                  and outcomes.get(alice_inbox, {}).get("status") == "delivered"
                  and outcomes.get("carol@elsewhere.example") == {
                      "address": "carol@elsewhere.example", "status": "held",
                      "reason": "outbound delivery is off on this server", "reason_code": "outbound_off"},
                  f"send_email: per recipient delivered or held with the reason, and sent false ({outcomes})")
            waited = payload(await bob.call_tool("wait_for_message", {"subject": "4242", "timeout_seconds": 10}))
            check(untrusted((waited.get("message") or {}).get("subject")) == "Sign-up code 4242",
                  "wait_for_message finds it, its subject inside the untrusted-content delimiter")
            check(waited.get("codes") == ["4242"], f"wait_for_message: the code Postern found ({waited.get('codes')})")
            inbox = payload(await bob.call_tool("read_inbox", {"limit": 5}))
            message_id = inbox["messages"][0]["id"]
            code = payload(await bob.call_tool("get_verification_code", {"subject": "Sign-up"}))
            check(code.get("code") == "4242" and code.get("message_id") == message_id
                  and code.get("alternatives") == [],
                  f"get_verification_code: the best code with its message id ({code})")
            links = payload(await bob.call_tool("get_links", {"message_id": message_id}))
            check(links.get("message_id") == message_id and links.get("links") == [],
                  f"get_links: a message without links has none ({links})")
            check(untrusted(inbox["messages"][0]["subject"]) == "Sign-up code 4242"
                  and untrusted(inbox["messages"][0]["from"][0]) == alice_inbox,
                  "read_inbox lists it, subject and sender inside the untrusted-content delimiter")
            message = payload(await bob.call_tool("read_message", {"message_id": message_id}))
            check("Your code is 4242." in (untrusted(message["body"]) or "")
                  and untrusted(message["attachments"][0]["filename"]) == "note.txt",
                  "read_message: the body inside the untrusted-content delimiter, the attachment listed")
            found = payload(await bob.call_tool("search_messages", {"body": "4242"}))
            check([m["id"] for m in found["messages"]] == [message_id], "search_messages: full text")
            results = payload(await bob.call_tool("search", {"query": "4242"}))["results"]
            check(results and results[0]["id"] == message_id and results[0]["url"], "search: {id, title, url}")
            fetched = payload(await bob.call_tool("fetch", {"id": message_id}))
            check("4242" in (untrusted(fetched["text"]) or "") and untrusted(fetched["title"]) == "Sign-up code 4242",
                  "fetch: the document, its text and title inside the untrusted-content delimiter")
            replied = await bob.call_tool("reply_to_message", {"message_id": message_id, "body": "Thanks!"})
            check(not replied.is_error, "reply_to_message sends")
            back = payload(await alice.call_tool("wait_for_message", {"subject": "Re: Sign-up", "timeout_seconds": 10}))
            thread = payload(await alice.call_tool("read_message", {"message_id": back["message"]["id"]}))
            check(untrusted(thread["subject"]) == "Re: Sign-up code 4242" and thread["in_reply_to"],
                  "the reply arrives in thread (In-Reply-To)")
            dry = payload(await alice.call_tool("run_preset", {"name": "send_mail", "dry_run": True, "variables": {
                "to": bob_inbox, "subject": "dry", "body": "not sent"}}))
            check(dry.get("dry_run") is True and dry["jmap_request"]["methodCalls"], "run_preset dry_run: the JMAP batch")
            ran = payload(await alice.call_tool("run_preset", {"name": "list_inbox", "variables": {"limit": 3}}))
            check(isinstance(ran["result"]["messages"], list), "run_preset list_inbox runs")
            raw = payload(await alice.call_tool("jmap_request", {"method_calls": [["Mailbox/get", {}, "m"]]}))
            check(len(raw["methodResponses"][0][1]["list"]) == 6, "jmap_request: Mailbox/get lists the six fixed mailboxes (decision 35)")
            helped = payload(await alice.call_tool("help", {"topic": "auth"}))
            check("X-API-Key" in helped, "help auth")
            delivery_help = payload(await alice.call_tool("help", {"topic": "delivery"}))
            check("outbound delivery is off on this server" in delivery_help
                  and "this inbox needs an owner before it can write outside" in delivery_help
                  and "released" in delivery_help, "help delivery: held, its reasons in words, and release")
            none = payload(await bob.call_tool("search_messages", {"subject": "dry"}))
            check(none["messages"] == [], "the dry run sent nothing")

            bad = [("nope", {}), ("read_inbox", {"limit": "ten"}), ("read_inbox", {"limit": 500}),
                   ("send_email", {"to": bob_inbox, "subject": 1, "body": "x"}),
                   ("send_email", {"to": bob_inbox, "subject": "big", "body": "x" * (1024 * 1024 + 1)}),
                   ("send_email", {"to": bob_inbox, "subject": "x", "body": "x", "surprise": True})]
            for tool, arguments in bad:
                try:
                    result = await alice.call_tool(tool, arguments)
                    check(False, f"{tool} {list(arguments)}: refused (got {result.content[0].text[:80]})")
                except MCPError as error:
                    check(error.error.code == -32602, f"{tool} {list(arguments)}: JSON-RPC {error.error.code} "
                          f"{error.error.message[:70]}")
            before = payload(await bob.call_tool("search_messages", {"subject": "big"}))
            check(before["messages"] == [], "nothing was sent by the refused calls")

    # Another key's session id: the raw transport, as a host replaying a stolen id would.
    status, head, body = http(base, "POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
        headers={"Accept": "application/json, text/event-stream"}, bearer=alice_key)
    alice_session = head.get("Mcp-Session-Id")
    status, head, body = http(base, "POST", "/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                              headers={"Mcp-Session-Id": alice_session, "X-API-Key": bob_key,
                                       "Accept": "application/json, text/event-stream"})
    check(status == 404 and body["error"]["code"] == -32001, f"another key's session id: 404 -32001 ({status})")
    status, head, body = http(base, "POST", "/mcp", {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    check(status == 401 and 'resource_metadata="' in head.get("WWW-Authenticate", ""),
          "no credential: 401 with resource_metadata")
    status, _, body = http(base, "GET", "/.well-known/oauth-protected-resource/mcp")
    check(status == 200 and body["resource"].endswith("/mcp"), "RFC 9728 metadata names the resource")


def docs_example(base, key):
    """Runs docs/api/mcp.md's `mcp` SDK example as written, with this server's URL and the agent's key for its two
    placeholders: it prints the tool names, then read_inbox's answer."""
    with open(os.path.join(ROOT, "docs", "api", "mcp.md")) as docs:
        code = re.search(r"From Python with the `mcp` SDK.*?```python\n(.*?)```", docs.read(), re.S).group(1)
    code = code.replace("http://127.0.0.1:8080/mcp", base + "/mcp").replace("<api key>", key)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/api/mcp.md", "exec"), {"__name__": "docs_example"})
    names, inbox = printed.getvalue().splitlines()[:2]
    check("'read_inbox'" in names and "'wait_for_message'" in names, "docs/api/mcp.md's example lists the tools")
    check("messages" in json.loads(inbox), "docs/api/mcp.md's example reads the inbox")


def main():
    install()
    with postern(env={"POSTERN_AGENT_POW_DIFFICULTY": "2", "POSTERN_AGENT_POW_DYNAMIC": "off"}) as base:
        alice_key, bob_key = signup(base, "alice-mcp"), signup(base, "bob-mcp")
        docs_example(base, alice_key)
        asyncio.run(main_async(base, alice_key, bob_key))
    check.finish("test_mcp_sdk")


if __name__ == "__main__":
    main()
