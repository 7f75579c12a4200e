#!/usr/bin/env python3
"""Mailpit's release (`POST /mailpit/api/v1/message/{ID}/release`, issue 71) through Postern's outbound queue, in
`relay` mode against the aiosmtpd smarthost (Tests/postern_testkit/smarthost.py), with the operator token:

1. A message an agent wrote in its own mailbox (a JMAP draft, From its address, with a Bcc) is found by Mailpit's
   search; releasing it to bob@far.example answers Mailpit's `200 ok`, and the smarthost takes it once, the envelope
   sender the agent's address, the recipient bob only, no Bcc header, DKIM-signed by the agent's domain; `webui` says
   the relay is on.
2. A received message is never sent on as its sender's (issue 81 item 7): an outsider's mail over SMTP whose From is
   the agent's address (our domain), in another account's inbox, and the same in the agent's own inbox, are each
   Mailpit's 400 naming the message, and nothing of them reaches the smarthost, so nothing is signed for our domain.
3. What the queue would not send is Mailpit's 400 in words, and nothing reaches the smarthost: an address the API
   cannot read, no address at all; an unknown message is 404.

Needs a build with outbound delivery (.build/debug/postern or $POSTERN_BIN); run by scripts/outbound-tests.
"""

import os
import smtplib
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit.outbound import AGENT_DOMAIN, OutboundWorld, dkim_results, header_names, until
from postern_testkit.smarthost import Smarthost

check = Checks()
USER, PASSWORD = "relay-user", "relay-pass-1"
TOKEN = "operator-token-" + "0123456789abcdef" * 2


def capture(base, sender, to, subject):
    """Stores a message from `sender` to `to` (local) over SMTP, as any outsider may send it; its Mailpit ID."""
    message = (f"From: <{sender}>\r\nTo: <{to}>\r\nBcc: <hidden@elsewhere.example>\r\nSubject: {subject}\r\n\r\n"
               "Release me.\r\n").encode()
    with smtplib.SMTP("127.0.0.1", base.smtp_port, timeout=30) as smtp:
        smtp.sendmail(sender, [to], message)
    return search(base, subject)


def search(base, subject):
    """The Mailpit ID of the newest message with `subject`, or None."""
    query = urllib.parse.quote(f'subject:"{subject}"')
    status, _, found = http(base, "GET", "/mailpit/api/v1/search?query=" + query, bearer=TOKEN)
    return found["messages"][0]["ID"] if status == 200 and found["messages"] else None


def draft(agent, subject):
    """Writes a draft in `agent`'s Drafts (JMAP Email/set: a message written here), From its address, with a Bcc."""
    created = {
        "mailboxIds": {agent.mailbox("drafts"): True}, "keywords": {"$draft": True},
        "from": [{"email": agent.address}], "to": [{"email": "bob@far.example"}],
        "bcc": [{"email": "hidden@elsewhere.example"}], "subject": subject,
        "bodyValues": {"body": {"value": "Release me."}}, "textBody": [{"partId": "body", "type": "text/plain"}],
    }
    _, answer = agent.response(agent.call(["Email/set", {"create": {"d": created}}, "e"]), "e")
    check("d" in (answer.get("created") or {}), f"the draft is written ({answer})")


def release(base, identifier, to):
    status, _, body = http(base, "POST", f"/mailpit/api/v1/message/{identifier}/release", {"To": to}, bearer=TOKEN)
    return status, body


def released(world, relay):
    env = world.base_env() | {"POSTERN_OUTBOUND_DELIVERY": "relay", "POSTERN_OPERATOR_TOKEN": TOKEN,
                              "POSTERN_RELAY_URL": f"smtp://{USER}:{PASSWORD}@127.0.0.1:{relay.port}"}
    with postern(env=env) as base:
        world.publish_dkim(base.data, AGENT_DOMAIN, env)
        alice = JMAPAgent(base, "alice-release")
        other = JMAPAgent(base, "other-release")
        _, _, webui = http(base, "GET", "/mailpit/api/v1/webui", bearer=TOKEN)
        check(webui["MessageRelay"]["Enabled"] is True, "webui: the relay is on for the operator")

        # An outsider's mail whose From is alice's address, in another account's inbox, then in alice's own: received
        # mail, refused whatever its From says, and nothing leaves.
        for to, subject in ((other.address, "From a CEO, to another inbox"), (alice.address, "From a CEO, to her")):
            forged = capture(base, alice.address, to, subject)
            check(forged is not None, f"the outsider's message is captured ({subject})")
            status, body = release(base, forged, ["bob@far.example"])
            check((status, body) == (400, f"Failed: message {forged} was received by this server, not written by its "
                                           "sender here: it is never sent on as its sender's mail; forward it in a "
                                           "new message"),
                  f"a received message, From {alice.address}: 400 ({status} {body})")
        stranger = capture(base, "app@example.com", alice.address, "From a stranger")
        status, body = release(base, stranger, ["bob@far.example"])
        check(status == 400 and body.startswith(f"Failed: message {stranger} was received"),
              f"a stranger's message: 400 ({status} {body})")
        check(not until(lambda: relay.messages, 3), f"nothing received left for the smarthost ({relay.messages})")

        draft(alice, "Release through the queue")
        identifier = search(base, "Release through the queue")
        check(identifier is not None, "Mailpit finds the draft alice wrote")
        status, body = release(base, identifier, ["Bob <bob@far.example>"])
        check((status, body) == (200, "ok"), f"release: Mailpit's 200 ok ({status} {body})")
        check(until(lambda: relay.messages, 30), "the smarthost took the released message")
        taken = list(relay.messages)
        check(len(taken) == 1 and taken[0].rcpt_tos == ["bob@far.example"], f"to bob only, once ({taken})")
        check(taken[0].mail_from == alice.address, f"the envelope sender is {alice.address}")
        names = header_names(taken[0].content)
        check("bcc" not in names and "subject" in names, f"no Bcc header left ({names})")
        results = dkim_results(taken[0].content, world.resolver)
        check(results and all(d == AGENT_DOMAIN and ok for _, d, ok in results), f"DKIM verifies ({results})")

        status, body = release(base, identifier, ["not an address"])
        check((status, body) == (400, "Invalid email address: not an address"), f"a bad address: 400 ({body})")
        status, body = release(base, identifier, [])
        check((status, body) == (400, "No valid addresses found"), f"no address: 400 ({body})")
        status, _ = release(base, "no-such-id", ["b@far.example"])
        check(status == 404, "an unknown message: 404")
        check(len(relay.messages) == 1, "nothing refused reached the smarthost")


def main():
    with OutboundWorld(receiver=False) as world:
        cert, key = world.ca.issue("smarthost.test", dns=("localhost",), ips=("127.0.0.1",))
        with Smarthost(cert, key, USER, PASSWORD) as relay:
            released(world, relay)
    check.finish("test_outbound_mailpit_release")


if __name__ == "__main__":
    main()
