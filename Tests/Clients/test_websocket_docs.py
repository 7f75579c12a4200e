"""The Python examples of docs/api/websocket.md run as written (issue 55): each block's function, with the
placeholders of its last line given real values, against `postern serve --profile test`, while a message is sent
over SMTP once the socket is open. A block that no longer runs, or answers something else, fails here."""

import asyncio
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, ".build", "client-sdks", "websockets"))  # scripts/client-tests installs it

from postern_testkit import Checks, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit.mail_fixtures import deliver_smtp, message
from postern_testkit.mailtd import create_account, domains

check = Checks()
TOKEN = "operator-token-" + "0123456789abcdef" * 2


def examples():
    with open(os.path.join(ROOT, "docs", "api", "websocket.md")) as docs:
        return re.findall(r"```python\n(.*?)```", docs.read(), re.S)


async def run(block, server, arguments, to):
    """Runs `block` without its last line, then the function that line calls with `arguments`, sending mail to `to`
    half a second later; the function's answer."""
    *body, last = block.rstrip().split("\n")
    called = re.match(r"print\(asyncio\.run\((\w+)\(", last)
    check(called is not None, f"the block ends by running its function: {last}")
    scope = {}
    exec("\n".join(body), scope)  # noqa: S102 - the project's own documentation
    answer = asyncio.create_task(scope[called.group(1)](*arguments))
    await asyncio.sleep(0.5)
    raw, _ = message("App <app@example.com>", to, "Your code is 424242", "Code: 424242\n")
    await asyncio.to_thread(deliver_smtp, "127.0.0.1", server.smtp_port, "app@example.com", [to], raw)
    return await asyncio.wait_for(answer, 10)


def main():
    blocks = examples()
    check(len(blocks) == 3, f"three examples: /api/ws, /api/operator/events, /jmap/ws ({len(blocks)})")
    lengths = [len(block.rstrip().split("\n")) for block in blocks]
    check(all(length <= 12 for length in lengths), f"each example about ten lines, as issue 55 asks ({lengths})")
    env = {"POSTERN_MAILBOX_POW_REQUIRED": "off", "POSTERN_OPERATOR_TOKEN": TOKEN}
    with postern(env=env) as server:
        ws = "ws" + server[len("http"):]
        account = create_account(server, "docs-ws@" + domains(server)[0], password="secret-password-1")
        got = asyncio.run(run(blocks[0], server, (ws, account["token"]), account["address"]))
        check(got[1] == "Your code is 424242" and "424242" in got[2], f"/api/ws's example: {got}")
        got = asyncio.run(run(blocks[1], server, (ws, TOKEN, account["address"]), account["address"]))
        check(got[1] == "Your code is 424242", f"/api/operator/events' example: {got}")
        agent = JMAPAgent(server, "docs-ws-agent")
        got = asyncio.run(run(blocks[2], server, (ws + "/jmap/ws", agent.token()), agent.address))
        check(len(got[1]) == 1 and got[0].isdigit(), f"/jmap/ws's example: (pushState, [id]) {got}")
    check.finish("test_websocket_docs")


if __name__ == "__main__":
    main()
