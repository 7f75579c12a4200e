#!/usr/bin/env python3
"""Outbound delivery's edges (issue 50), end to end in `direct` mode: an agent sends through JMAP and Postern finds
the receivers through the loopback DNS server.

1. Delay notice: a receiver (aiosmtpd, Tests/postern_testkit/smarthost.py's Receiver on 127.0.0.4:25) answers RCPT
   for slow.test with 450; with POSTERN_OUTBOUND_DELAY_NOTICE_SECONDS=2 and retries every second, the sender's inbox
   gets one RFC 3464 report with `Action: delayed`, a 4.x.y `Status` and `Will-Retry-Until`, and only one however
   many attempts follow, also after Postern restarts on the same data directory; once the receiver takes the mail it
   is delivered and no bounce comes.
2. Plaintext fallback: the receiver answers 220 to STARTTLS and then breaks the handshake; a domain never delivered
   to over TLS (flaky.test) gets its message in the clear on the same attempt.
3. The ratchet: ratchet.test takes one message over TLS; with the handshake then broken, the next message is not
   sent in the clear (the recipient stays queued, the receiver gets nothing for it); `postern mail tls-reset
   ratchet.test` lets the next retry fall back, and the message arrives in the clear.
4. Connection reuse: ten messages wait for dest.test (the real Postfix on 127.0.0.2, stopped while they are
   submitted); Postfix started and `postern mail queue --all`, all ten arrive over at most two SMTP sessions
   (Postfix's own log: its `disconnect from ... mail=N` lines).
5. Equal-preference MX hosts: pair.test has two MX hosts of preference 10 (two Postfix instances, 127.0.0.5 and
   127.0.0.6); with one message per connection, each of 80 messages goes to either, and each host receives over 20.

Loopback only (127.0.0.0/8); needs root (Postfix, port 25) and a build with outbound delivery (.build/debug/postern
or $POSTERN_BIN); run by scripts/outbound-tests. Exit status 0 when every check passed.
"""

import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit.outbound import DESTINATION, OutboundWorld, cli, reports, status_of, until
from postern_testkit.postfix_receiver import PostfixReceiver
from postern_testkit.smarthost import Receiver

check = Checks()
RECEIVER = "127.0.0.4"
PAIR = (("mx1.pair.test", "127.0.0.5"), ("mx2.pair.test", "127.0.0.6"))


def tls(received):
    """Whether each received message came over TLS."""
    return [m.tls for m in received or []]


def delay_notice(world, receiver, env, data):
    address = "late@slow.test"
    receiver.refuse["slow.test"] = "450 4.2.0 mailbox busy, try later"
    with postern(env=env, data=data) as base:
        alice = JMAPAgent(base, "alice-delay")
        _, sent = alice.send(to=[address], subject="delayed")
        notices = until(lambda: reports(alice, "delayed"), 60)
        check(len(notices) == 1, f"a delay notice reached the sender's inbox ({len(notices)})")
        text = notices[0] if notices else ""
        check(re.search(r"Final-Recipient:\s*rfc822;\s*" + re.escape(address), text) is not None
              and re.search(r"Status:\s*4\.2\.0", text) is not None
              and re.search(r"Will-Retry-Until:\s*\w{3}, \d+ \w{3} \d{4}", text) is not None
              and "Delayed Mail" in text,
              "the notice: RFC 3464, the recipient, Action delayed, Status 4.2.0, Will-Retry-Until")
        at_notice = receiver.refused
        check(until(lambda: receiver.refused >= at_notice + 3, 30), f"three more attempts ({receiver.refused})")
        check(len(reports(alice, "delayed")) == 1 and status_of(alice, sent, address)[0] == "queued",
              "still queued, and still one notice after three more attempts")
        check(not reports(alice, "failed"), "no bounce while it is retried")
    with postern(env=env, data=data) as again:
        alice.base = again
        restarted = receiver.refused
        check(until(lambda: receiver.refused >= restarted + 3, 30), "attempts go on after a restart")
        check(len(reports(alice, "delayed")) == 1, "still one notice after the restart (it is persisted)")
        receiver.refuse.pop("slow.test")
        check(until(lambda: receiver.messages_to(address), 30), "the receiver takes it at last")
        check(until(lambda: status_of(alice, sent, address)[0] == "yes", 30), "and it is delivered (yes)")
        check(len(reports(alice, "delayed")) == 1 and not reports(alice, "failed"), "one notice, no bounce, in all")


def fallback_and_ratchet(world, receiver, env, data):
    with postern(env=env, data=data) as base:
        alice = JMAPAgent(base, "alice-tls")
        # 2. A domain never seen over TLS: the failed handshake is retried in the clear.
        receiver.break_tls = True
        flaky = "a@flaky.test"
        broken = receiver.broken_handshakes
        _, sent = alice.send(to=[flaky], subject="fallback")
        arrived = until(lambda: receiver.messages_to(flaky), 30)
        check(bool(arrived) and not arrived[0].tls and receiver.broken_handshakes > broken,
              f"flaky.test: after the broken handshake the message arrived in the clear (TLS: {tls(arrived)})")
        delivered = until(lambda: status_of(alice, sent, flaky)[0] == "yes", 30)
        check(bool(delivered) and len(receiver.messages_to(flaky)) == 1,
              f"flaky.test: delivered yes, once ({status_of(alice, sent, flaky)})")
        # 3. A domain delivered to over TLS once is never sent in the clear after that.
        receiver.break_tls = False
        first = "b@ratchet.test"
        alice.send(to=[first], subject="over TLS")
        secure = until(lambda: receiver.messages_to(first), 30)
        check(bool(secure) and secure[0].tls, f"ratchet.test: the first message arrived over TLS (TLS: {tls(secure)})")
        receiver.break_tls = True
        second = "c@ratchet.test"
        broken = receiver.broken_handshakes
        _, held = alice.send(to=[second], subject="not in the clear")
        check(until(lambda: receiver.broken_handshakes >= broken + 3, 30),
              "ratchet.test: three attempts met the broken handshake")
        delivered, reply = status_of(alice, held, second)
        check(not receiver.messages_to(second) and delivered == "queued" and "TLS" in reply,
              f"ratchet.test: nothing in the clear, still queued, the reply names TLS ({delivered} {reply})")
        code, out, err = cli(data, env, "mail", "tls-reset", "ratchet.test")
        check(code == 0 and "ratchet.test" in out, f"postern mail tls-reset ratchet.test ({code} {out} {err})")
        arrived = until(lambda: receiver.messages_to(second), 30)
        check(bool(arrived) and not arrived[0].tls,
              f"ratchet.test: after tls-reset the next retry falls back, in the clear (TLS: {tls(arrived)})")
        receiver.break_tls = False


def sessions_since(postfix, offset):
    """The MAIL counts of each SMTP session Postfix logged since `offset` that sent mail (`disconnect from ...
    mail=N`)."""
    counts = []
    for line in postfix.log_text()[offset:].splitlines():
        found = re.search(r"disconnect from .* mail=(\d+)", line)
        if found:
            counts.append(int(found.group(1)))
    return counts


def reuse(world, env):
    address = f"reuse@{DESTINATION}"
    world.receiver.add_mailbox(address)
    env = env | {"POSTERN_OUTBOUND_RETRY_SECONDS": "3600"}
    with postern(env=env) as base:
        alice = JMAPAgent(base, "alice-reuse")
        world.receiver.stop()
        sent = [alice.send(to=[address], subject=f"reuse {i}")[1] for i in range(10)]
        check(all(sent), "ten submissions acknowledged while Postfix is stopped")
        check(until(lambda: all("queued for delivery" not in status_of(alice, s, address)[1] for s in sent), 60),
              "each met the stopped receiver once and waits an hour")
        world.receiver.start()
        offset = len(world.receiver.log_text())
        code, out, err = cli(base.data, env, "mail", "queue", "--all")
        check(code == 0, f"postern mail queue --all ({code} {out} {err})")
        arrived = until(lambda: len(world.receiver.messages(address)) >= 10, 60)
        check(bool(arrived) and len(world.receiver.messages(address)) == 10, "all ten arrived, once each")
        until(lambda: sum(sessions_since(world.receiver, offset)) >= 10, 30)
        sessions = sessions_since(world.receiver, offset)
        check(sum(sessions) == 10 and 1 <= len(sessions) <= 2,
              f"over at most two SMTP sessions (MAIL commands per session: {sessions})")


def equal_preference(world, env):
    receivers = []
    try:
        for name, address in PAIR:
            mx = PostfixReceiver(os.path.join(world.work, name), world.ca, address=address, hostname=name,
                                 domains=("pair.test",), mailboxes=["pair@pair.test"])
            receivers.append(mx)
            mx.write_config()
            mx.start()
            world.zone[(name, "A")] = [address]
        world.zone[("pair.test", "MX")] = [(10, name) for name, _ in PAIR]
        env = env | {"POSTERN_OUTBOUND_MESSAGES_PER_CONNECTION": "1", "POSTERN_OUTBOUND_PER_HOUR": "200"}
        with postern(env=env) as base:
            alice = JMAPAgent(base, "alice-pair")
            total = 80
            for i in range(total):
                alice.send(to=["pair@pair.test"], subject=f"pair {i}")
            arrived = until(lambda: sum(mx.count() for mx in receivers) >= total, 120)
            counts = [mx.count() for mx in receivers]
            check(bool(arrived) and sum(counts) == total, f"all {total} arrived ({counts})")
            check(all(count > 20 for count in counts),
                  f"two MX hosts of equal preference each received over 20 of {total} ({counts})")
    finally:
        for mx in receivers:
            mx.clean()


def main():
    if os.geteuid() != 0:
        raise SystemExit("test_outbound_delivery: needs root (Postfix and the receiver on port 25)")
    data = tempfile.mkdtemp(prefix="postern-outbound-delivery-")
    try:
        with OutboundWorld(mailboxes=[f"bob@{DESTINATION}"]) as world:
            for domain in ("slow.test", "flaky.test", "ratchet.test"):
                world.zone[(domain, "MX")] = [(10, "mx." + domain)]
                world.zone[("mx." + domain, "A")] = [RECEIVER]
            cert, key = world.ca.issue("mx.receiver.test", ips=(RECEIVER,))
            env = world.direct_env(POSTERN_OUTBOUND_DELAY_NOTICE_SECONDS="2")
            with Receiver(cert, key, RECEIVER) as receiver:
                delay_notice(world, receiver, env, data)
                fallback_and_ratchet(world, receiver, env, data)
            reuse(world, world.direct_env())
            equal_preference(world, world.direct_env())
    finally:
        shutil.rmtree(data, ignore_errors=True)
    check.finish("test_outbound_delivery")


if __name__ == "__main__":
    main()
