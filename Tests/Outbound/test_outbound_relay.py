#!/usr/bin/env python3
"""Outbound delivery in `relay` mode, end to end against a smarthost that requires STARTTLS and AUTH (aiosmtpd,
Tests/postern_testkit/smarthost.py): POSTERN_RELAY_URL=smtp://user:password@127.0.0.1:<port>.

1. An agent's message (To and Bcc, on two domains) reaches the smarthost for each recipient once (in one
   transaction or one per destination domain): each session was TLS and authenticated as the URL's user, the
   envelope sender is the agent's address, the recipients are To and Bcc, the message has no Bcc header, has
   Message-ID, Date and Postern's Received, and carries both DKIM signatures, which verify with dkimpy against
   `postern dkim show`'s records; EmailSubmission/get says `yes` with the smarthost's 250. No DNS question for the
   recipients' domains is needed (the loopback DNS server holds no MX for them).
2. A second Postern whose URL has a wrong password: the smarthost refuses the login (535) and takes nothing; the
   recipient is never `yes`: it stays queued (Postfix's choice, smtp_sasl_auth_soft_bounce: an operator's typo is
   not the recipient's fault) or ends `no` with the 535 (the issue's "5xx bounces"); either is accepted here.

Needs a build with outbound delivery (.build/debug/postern or $POSTERN_BIN); run by scripts/outbound-tests. Exit
status 0 when every check passed.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit.outbound import AGENT_DOMAIN, OutboundWorld, dkim_results, header_names, until
from postern_testkit.smarthost import Smarthost

check = Checks()
USER, PASSWORD = "relay-user", "relay-pass-1"


def relay_env(world, port, password=PASSWORD):
    return world.base_env() | {"POSTERN_OUTBOUND_DELIVERY": "relay",
                               "POSTERN_RELAY_URL": f"smtp://{USER}:{password}@127.0.0.1:{port}"}


def delivery_status(agent, submission, recipient):
    found = agent.submissions([submission])
    status = (found[0].get("deliveryStatus") or {}).get(recipient, {}) if found else {}
    delivered = status.get("delivered")
    return (delivered, status.get("smtpReply", "")) if delivered in ("yes", "no") else None


def relayed(world, relay):
    env = relay_env(world, relay.port)
    with postern(env=env) as base:
        world.publish_dkim(base.data, AGENT_DOMAIN, env)
        alice = JMAPAgent(base, "alice-relay")
        to, bcc = "bob@far.example", "carol@elsewhere.example"
        response, sent = alice.send(to=[to], bcc=[bcc], subject="through the smarthost")
        status = ((response.get("created") or {}).get("send") or {}).get("deliveryStatus", {}).get(to, {})
        if status.get("heldReason") == "outbound_off":
            check(False, f"this build has no outbound delivery (relay mode not honoured): {status.get('smtpReply')}")
            return
        check(until(lambda: sum(len(m.rcpt_tos) for m in relay.messages) >= 2),
              f"the smarthost took the message for both recipients ({[m.rcpt_tos for m in relay.messages]})")
        taken = list(relay.messages)
        check(sorted(r for m in taken for r in m.rcpt_tos) == sorted([bcc, to]), "the envelope: To and Bcc, once each")
        check(all(m.tls and m.user == USER for m in taken), "each session was STARTTLS and AUTH as the URL's user")
        check(all(m.mail_from == alice.address for m in taken), f"the envelope sender is {alice.address}")
        for message in taken:
            names = header_names(message.content)
            check("bcc" not in names, "no Bcc header")
            check({"message-id", "date", "received"} <= set(names),
                  f"Message-ID, Date and Postern's Received ({names})")
            results = dkim_results(message.content, world.resolver)
            check(sorted(a for a, _, _ in results) == ["ed25519-sha256", "rsa-sha256"]
                  and all(d == AGENT_DOMAIN and ok for _, d, ok in results),
                  f"RSA and Ed25519 DKIM signatures verify with dkimpy ({results})")
        for who in (to, bcc):
            done = until(lambda: delivery_status(alice, sent, who), 30)
            check(bool(done) and done[0] == "yes" and "taken by the smarthost" in done[1],
                  f"EmailSubmission/get: {who} yes with the smarthost's 250 ({done})")


def wrong_password(world, relay):
    env = relay_env(world, relay.port, password="not-the-password")
    with postern(env=env) as base:
        alice = JMAPAgent(base, "alice-badrelay")
        before, refused_before = len(relay.messages), relay.refused_logins
        to = "bob@far.example"
        _, sent = alice.send(to=[to], subject="wrong password")
        check(until(lambda: relay.refused_logins > refused_before), "the smarthost refused the login")
        done = delivery_status(alice, sent, to)
        check(done is None or (done[0] == "no" and "535" in done[1]),
              f"the recipient is queued, or no with the 535, never yes ({done})")
        check(len(relay.messages) == before, "the smarthost took nothing")


def main():
    with OutboundWorld(receiver=False) as world:
        cert, key = world.ca.issue("smarthost.test", dns=("localhost",), ips=("127.0.0.1",))
        with Smarthost(cert, key, USER, PASSWORD) as relay:
            relayed(world, relay)
            if not check.failures:
                wrong_password(world, relay)
    check.finish("test_outbound_relay")


if __name__ == "__main__":
    main()
