#!/usr/bin/env python3
"""Outbound delivery survives kill -9 (issue 50): a real `postern serve` in `direct` mode on SQLite, killed in the
middle of an attempt, then started again on the same data directory.

1. Killed during an attempt: the receiver (aiosmtpd, Tests/postern_testkit/smarthost.py's Receiver on 127.0.0.7:25)
   keeps its reply to the end of DATA back; Postern is killed while it waits. Started again, the message leaves
   within a minute (the dead process's lease is released at start; with the old 900 s lease it waited 15 minutes),
   and the receiver holds it once.
2. Killed between the remote 550 and the commit: the receiver refuses the recipient with `550 5.1.1` and keeps its
   reply to QUIT back, so the attempt's outcome is known to Postern and not yet recorded when it is killed. Started
   again, the sender's inbox holds exactly one bounce for it (not zero, not two), and the submission says `no`.
3. Killed with a reused connection half done: two messages wait for crash.test and leave over one connection; the
   receiver takes the first and keeps its reply to the second's DATA back. The first is recorded delivered while the
   connection is still open (before, a connection's deliveries were recorded when it ended), Postern is killed, and
   started again it sends the second only: the receiver holds each once.

Loopback only; needs root (port 25 on 127.0.0.7) and the debug build (or $POSTERN_BIN); run by scripts/outbound-tests.
"""

import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit.outbound import OutboundWorld, cli, reports, status_of, until
from postern_testkit.smarthost import Receiver

check = Checks()
RECEIVER = "127.0.0.7"


def killed(base):
    """kill -9 of the server behind `base`, reaped."""
    base.process.kill()
    base.process.wait(timeout=30)


def delivered(agent, submission, recipient):
    return status_of(agent, submission, recipient)[0]


def bounces(agent, recipient):
    """The delivery status reports with `Action: failed` for `recipient` in the agent's inbox."""
    return [report for report in reports(agent, "failed") if recipient in report]


def killed_during_attempt(receiver, env, data):
    address = "late@crash.test"
    receiver.stall_data = True
    with postern(env=env, data=data) as base:
        alice = JMAPAgent(base, "alice-crash")
        _, sent = alice.send(to=[address], subject="through a crash")
        check(bool(sent) and until(lambda: receiver.stalled_data >= 1, 30),
              "the attempt reached the end of DATA, and the receiver keeps its reply back")
        killed(base)
    receiver.stall_data = False
    check(not receiver.messages_to(address), "the receiver took nothing from the killed attempt")
    started = time.monotonic()
    with postern(env=env, data=data) as again:
        alice.base = again
        arrived = until(lambda: receiver.messages_to(address), 60)
        elapsed = time.monotonic() - started
        check(bool(arrived), f"started again, the message left within a minute ({elapsed:.1f} s after the start)")
        check(until(lambda: delivered(alice, sent, address) == "yes", 30) and len(receiver.messages_to(address)) == 1,
              f"delivered yes, and the receiver holds it once ({len(receiver.messages_to(address))})")


def killed_before_commit(receiver, env, data):
    address = "gone@crash.test"
    receiver.refuse["crash.test"] = "550 5.1.1 no such mailbox here"
    receiver.stall_quit = True
    with postern(env=env, data=data) as base:
        bob = JMAPAgent(base, "bob-crash")
        _, sent = bob.send(to=[address], subject="refused, then a crash")
        check(bool(sent) and until(lambda: receiver.stalled_quits >= 1, 30) and receiver.refused >= 1,
              "the receiver answered 550 and keeps its reply to QUIT back")
        killed(base)
    receiver.stall_quit = False
    with postern(env=env, data=data) as again:
        bob.base = again
        check(until(lambda: bounces(bob, address), 60), "started again, a bounce reached the sender")
        check(until(lambda: delivered(bob, sent, address) == "no", 30), "the submission says no")
        refused = receiver.refused
        time.sleep(4)  # four retry delays: a second bounce, or another attempt, would show by now
        found = bounces(bob, address)
        check(len(found) == 1 and receiver.refused == refused,
              f"exactly one bounce, and no attempt after it ({len(found)} bounces, "
              f"{receiver.refused - refused} more attempts)")
    receiver.refuse.pop("crash.test")


def killed_mid_connection(receiver, env, data):
    addresses = ("one@crash.test", "two@crash.test")
    env = env | {"POSTERN_OUTBOUND_RETRY_SECONDS": "3600"}
    receiver.refuse["crash.test"] = "450 4.2.0 not now"
    with postern(env=env, data=data) as base:
        carol = JMAPAgent(base, "carol-crash")
        refused = receiver.refused
        sent = {address: carol.send(to=[address], subject="one of two")[1] for address in addresses}
        check(all(sent.values()) and until(lambda: receiver.refused >= refused + 2, 30),
              "two messages met a 450 once each and wait an hour")
        receiver.refuse.pop("crash.test")
        taken = len(receiver.messages)
        receiver.stall_data = lambda content: len(receiver.messages) > taken  # the connection's second message
        connections, stalled = receiver.connections, receiver.stalled_data
        code, out, err = cli(base.data, env, "mail", "queue", "--all")
        check(code == 0, f"postern mail queue --all ({code} {out} {err})")
        check(until(lambda: len(receiver.messages) == taken + 1 and receiver.stalled_data > stalled, 30),
              "the receiver took the connection's first message and keeps the second's DATA reply back")
        check(receiver.connections == connections + 1, "both went over one connection")
        first = next((a for a in addresses if receiver.messages_to(a)), None)
        second = next(a for a in addresses if a != first)
        check(first is not None and until(lambda: delivered(carol, sent[first], first) == "yes", 30),
              "the first is recorded delivered while the connection is still open")
        killed(base)
    receiver.stall_data = False
    with postern(env=env, data=data) as again:
        carol.base = again
        check(until(lambda: receiver.messages_to(second), 60), "started again, the second message left")
        check(until(lambda: delivered(carol, sent[second], second) == "yes", 30), "and is recorded delivered")
        counts = [len(receiver.messages_to(address)) for address in addresses]
        check(counts == [1, 1], f"the receiver holds each once ({counts})")


def main():
    if os.geteuid() != 0:
        raise SystemExit("test_outbound_crash: needs root (the receiver on port 25)")
    data = tempfile.mkdtemp(prefix="postern-outbound-crash-")
    try:
        with OutboundWorld(receiver=False) as world:
            world.zone[("crash.test", "MX")] = [(10, "mx.crash.test")]
            world.zone[("mx.crash.test", "A")] = [RECEIVER]
            cert, key = world.ca.issue("mx.crash.test", ips=(RECEIVER,))
            env = world.direct_env(POSTERN_SMTP_HOSTNAME="postern.crash.test")
            with Receiver(cert, key, RECEIVER, hostname="mx.crash.test") as receiver:
                killed_during_attempt(receiver, env, data)
                killed_before_commit(receiver, env, data)
                killed_mid_connection(receiver, env, data)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    check.finish("test_outbound_crash")


if __name__ == "__main__":
    main()
