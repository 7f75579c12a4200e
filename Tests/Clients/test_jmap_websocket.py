"""JMAP over WebSocket (RFC 8887, issue 55) against a real `postern serve --profile test`, with `websockets` from
PyPI: the session's capability, the upgrade's refusals (no `jmap` subprotocol 400; no bearer, a bearer that does not
authenticate, and an API key, which POST /jmap/api refuses too, each get POST /jmap/api's own 401, WWW-Authenticate and
problem body, before the upgrade: never a 101 then a close), a Request answered with its Response and requestId,
RequestErrors, and a StateChange pushed after a delivery over SMTP, read back on the socket."""

import asyncio
import json
import os
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, ".build", "client-sdks", "websockets"))  # scripts/client-tests installs it
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from postern_testkit import Checks, http, postern
from postern_testkit.jmap_agent import USING, JMAPAgent
from postern_testkit.mail_fixtures import deliver_smtp, message

check = Checks()


def deliver(server, to, subject):
    raw, _ = message("App <app@example.com>", to, subject, "Your code is 424242\n")
    check(deliver_smtp("127.0.0.1", server.smtp_port, "app@example.com", [to], raw) == {}, f"SMTP took {subject}")


async def refused_status(url, **options):
    return (await refusal(url, **options))[0]


async def refusal(url, **options):
    """(status, WWW-Authenticate, Content-Type, body) of the answer to the opening handshake; 101 when it switched."""
    try:
        async with connect(url, **options):
            return 101, None, None, b""
    except InvalidStatus as refused:
        headers = refused.response.headers
        return (refused.response.status_code, headers.get("WWW-Authenticate"), headers.get("Content-Type"),
                refused.response.body)


def api_refusal(server, bearer):
    """(status, WWW-Authenticate, Content-Type, body) of POST /jmap/api with `bearer`."""
    headers = {"Content-Type": "application/json"} | ({"Authorization": "Bearer " + bearer} if bearer else {})
    request = urllib.request.Request(server + "/jmap/api", data=b'{"using":[],"methodCalls":[]}', headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, None, None, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("WWW-Authenticate"), error.headers.get("Content-Type"), error.read()


async def scenario(server, agent):
    status, _, session = http(server, "GET", "/.well-known/jmap", bearer=agent.token())
    capability = session["capabilities"].get("urn:ietf:params:jmap:websocket", {})
    url = capability.get("url", "")
    check(status == 200 and capability.get("supportsPush") is True and url.endswith("/jmap/ws"),
          f"the session advertises urn:ietf:params:jmap:websocket ({capability})")
    url = "ws" + server[len("http"):] + "/jmap/ws"  # the advertised host is POSTERN_PUBLIC_URL's, not the bound port
    account = session["primaryAccounts"]["urn:ietf:params:jmap:mail"]
    auth = {"Authorization": "Bearer " + agent.token()}

    check(await refused_status(url, additional_headers=auth) == 400, "no jmap subprotocol: 400 before the upgrade")
    # The bearer is checked before the upgrade, by POST /jmap/api's authenticator: the same 401, never a 101 then a
    # close. An agent's API key is MCP's credential, not JMAP's, and is refused by both.
    for name, bearer in (("no bearer", None), ("a bearer that does not authenticate", "nope"),
                         ("a forged JWT", "eyJhbGciOiJFZERTQSJ9.eyJleHAiOjF9.c2ln"),
                         ("an API key", agent.api_key)):
        options = {"additional_headers": {"Authorization": "Bearer " + bearer}} if bearer else {}
        got = await refusal(url, subprotocols=["jmap"], **options)
        api = api_refusal(server, bearer)
        check(got[0] == 401 and got[1] and got[1] == api[1] and got[2] == api[2] and got[3] == api[3]
              and api[0] == 401, f"{name}: POST /jmap/api's 401 before the upgrade, no 101 ({got[:3]}, {got[3][:80]})")

    async with connect(url, subprotocols=["jmap"], additional_headers=auth) as ws:
        check(ws.subprotocol == "jmap", "the server chose the jmap subprotocol")
        await ws.send(json.dumps({"@type": "Request", "id": "R1", "using": USING,
                                  "methodCalls": [["Mailbox/get", {"accountId": account, "ids": None}, "c1"]]}))
        response = json.loads(await asyncio.wait_for(ws.recv(), 5))
        names = [m.get("role") for m in response["methodResponses"][0][1]["list"]]
        check(response["@type"] == "Response" and response["requestId"] == "R1" and "inbox" in names,
              f"a Request answered with its Response and requestId ({response.get('requestId')}, {names})")
        await ws.send("not json")
        error = json.loads(await asyncio.wait_for(ws.recv(), 5))
        check(error == {"@type": "RequestError", "requestId": None, "type": "urn:ietf:params:jmap:error:notJSON",
                        "status": 400, "detail": error.get("detail")}, f"not JSON: a RequestError ({error})")
        await ws.send(json.dumps({"@type": "Request", "id": "R2", "using": ["urn:example:none"], "methodCalls": []}))
        error = json.loads(await asyncio.wait_for(ws.recv(), 5))
        check(error["type"] == "urn:ietf:params:jmap:error:unknownCapability" and error["requestId"] == "R2",
              f"an unknown capability: a RequestError with the requestId ({error})")

        await ws.send(json.dumps({"@type": "WebSocketPushEnable", "dataTypes": ["EmailDelivery", "Email"]}))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        deliver(server, agent.address, "pushed over JMAP")
        change = json.loads(await asyncio.wait_for(ws.recv(), 5))
        took = time.monotonic() - started
        changed = change.get("changed", {}).get(account, {})
        check(change["@type"] == "StateChange" and set(changed) == {"Email", "EmailDelivery"}
              and change.get("pushState") == changed["Email"],
              f"a StateChange with pushState after SMTP ({change}, {took:.2f} s)")
        await ws.send(json.dumps({"@type": "Request", "id": "R3", "using": USING, "methodCalls": [
            ["Email/query", {"accountId": account, "sort": [{"property": "receivedAt", "isAscending": False}]}, "q"],
            ["Email/get", {"accountId": account, "#ids": {"resultOf": "q", "name": "Email/query", "path": "/ids"},
                           "properties": ["subject"]}, "g"]]}))
        response = json.loads(await asyncio.wait_for(ws.recv(), 5))
        subjects = [m["subject"] for m in response["methodResponses"][1][1]["list"]]
        check(response["requestId"] == "R3" and subjects[:1] == ["pushed over JMAP"],
              f"the pushed change reads through the same socket ({subjects[:1]})")


def main():
    with postern() as server:
        agent = JMAPAgent(server, "ws-agent")
        asyncio.run(scenario(server, agent))
    check.finish("test_jmap_websocket")


if __name__ == "__main__":
    main()
