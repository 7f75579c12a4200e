#!/usr/bin/env python3
"""Mailpit's release (`POST /mailpit/api/v1/message/{ID}/release`, issue 71) through Postern's outbound queue, in
`relay` mode against the aiosmtpd smarthost (Tests/postern_testkit/smarthost.py), with the operator token:

1. A message an agent wrote (From its address, with a Bcc header) is captured over SMTP in its own inbox; releasing
   it to bob@far.example answers Mailpit's `200 ok`, and the smarthost takes it once, the envelope sender the agent's
   address, the recipient bob only, no Bcc header, DKIM-signed by the agent's domain; `webui` says the relay is on.
2. What the queue would not send is Mailpit's 400 in words, and nothing reaches the smarthost: a message from an
   address that is no mailbox here, an address the API cannot read, no address at all.

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
    """Stores a message from `sender` to `to` (local) over SMTP, a Bcc header in it; its Mailpit ID."""
    message = (f"From: <{sender}>\r\nTo: <{to}>\r\nBcc: <hidden@elsewhere.example>\r\nSubject: {subject}\r\n\r\n"
               "Release me.\r\n").encode()
    with smtplib.SMTP("127.0.0.1", base.smtp_port, timeout=30) as smtp:
        smtp.sendmail(sender, [to], message)
    query = urllib.parse.quote(f'subject:"{subject}"')
    status, _, found = http(base, "GET", "/mailpit/api/v1/search?query=" + query, bearer=TOKEN)
    return found["messages"][0]["ID"] if status == 200 and found["messages"] else None


def released(world, relay):
    env = world.base_env() | {"POSTERN_OUTBOUND_DELIVERY": "relay", "POSTERN_OPERATOR_TOKEN": TOKEN,
                              "POSTERN_RELAY_URL": f"smtp://{USER}:{PASSWORD}@127.0.0.1:{relay.port}"}
    with postern(env=env) as base:
        world.publish_dkim(base.data, AGENT_DOMAIN, env)
        alice = JMAPAgent(base, "alice-release")
        _, _, webui = http(base, "GET", "/mailpit/api/v1/webui", bearer=TOKEN)
        check(webui["MessageRelay"]["Enabled"] is True, "webui: the relay is on for the operator")
        identifier = capture(base, alice.address, alice.address, "Release through the queue")
        check(identifier is not None, "the message is captured in the agent's inbox")
        status, _, body = http(base, "POST", f"/mailpit/api/v1/message/{identifier}/release",
                               {"To": ["Bob <bob@far.example>"]}, bearer=TOKEN)
        check((status, body) == (200, "ok"), f"release: Mailpit's 200 ok ({status} {body})")
        check(until(lambda: relay.messages, 30), "the smarthost took the released message")
        taken = list(relay.messages)
        check(len(taken) == 1 and taken[0].rcpt_tos == ["bob@far.example"], f"to bob only, once ({taken})")
        check(taken[0].mail_from == alice.address, f"the envelope sender is {alice.address}")
        names = header_names(taken[0].content)
        check("bcc" not in names and "subject" in names, f"no Bcc header left ({names})")
        results = dkim_results(taken[0].content, world.resolver)
        check(results and all(d == AGENT_DOMAIN and ok for _, d, ok in results), f"DKIM verifies ({results})")

        stranger = capture(base, "app@example.com", alice.address, "From a stranger")
        status, _, body = http(base, "POST", f"/mailpit/api/v1/message/{stranger}/release",
                               {"To": ["bob@far.example"]}, bearer=TOKEN)
        check((status, body) == (400, "Failed: app@example.com is no mailbox of this server"),
              f"a sender that is no mailbox here: 400 ({status} {body})")
        status, _, body = http(base, "POST", f"/mailpit/api/v1/message/{identifier}/release",
                               {"To": ["not an address"]}, bearer=TOKEN)
        check((status, body) == (400, "Invalid email address: not an address"), f"a bad address: 400 ({body})")
        status, _, body = http(base, "POST", f"/mailpit/api/v1/message/{identifier}/release", {"To": []},
                               bearer=TOKEN)
        check((status, body) == (400, "No valid addresses found"), f"no address: 400 ({body})")
        status, _, _ = http(base, "POST", "/mailpit/api/v1/message/no-such-id/release", {"To": ["b@far.example"]},
                            bearer=TOKEN)
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
