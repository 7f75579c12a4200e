#!/usr/bin/env python3
"""Outbound delivery in `direct` mode, end to end against a real Postfix: an agent sends through JMAP
(Email/set + EmailSubmission/set, plain HTTP JSON) and Postern finds the receiver through the loopback DNS server
(MX dest.test -> mx.dest.test -> A 127.0.0.2; nomx.test has only an A record: RFC 5321 5.1's fallback) and delivers
to Postfix on 127.0.0.2:25 (Tests/postern_testkit/postfix_receiver.py).

1. Delivery: To and Bcc recipients each get the message in their Maildir; Postfix's Received says ESMTPS (STARTTLS,
   the certificate from the test's CA, POSTERN_OUTBOUND_TRUST_CA_FILE); no Bcc header; Message-ID, Date and Postern's
   own Received present; Return-Path (the envelope sender) is the agent's address; two DKIM signatures (rsa-sha256
   and ed25519-sha256, d=agents.localhost) verify with dkimpy against the TXT records `postern dkim show` printed and
   the DNS server publishes; EmailSubmission/get says `yes` with Postfix's 250 per recipient, and
   EmailSubmission/changes names the submission. A domain with no MX is reached through its A record.
2. A 550 (Postfix's access map): deliveryStatus `no` with the 550 line, and a DSN (multipart/report,
   report-type=delivery-status, RFC 3464) in the sender's inbox, read through JMAP.
3. A 450, then the map changed to take it: delivered exactly once after the retry (POSTERN_OUTBOUND_RETRY_SECONDS=1).
4. kill -9 with messages queued (Postfix stopped, so they wait): `postern mail queue` on the dead server's data
   directory lists them; Postern restarted on the same data directory, Postfix started: every message arrives,
   exactly once (no 250 was given before the kill, so none may come twice).
5. POSTERN_OUTBOUND_SENDERS=owned: an anonymous agent's outside recipient is held in the outbox (`delivered: "no"`,
   `heldReason` `needs_owner`, listed by `postern mail outbox` with its reason, a release refused while it has no
   owner, nothing reaches Postfix); an inbox an owner linked is delivered, and past POSTERN_OUTBOUND_PER_HOUR its next
   submission is refused with SetError forbiddenToSend naming the limit; once the owner links the anonymous inbox,
   `postern mail outbox --release` queues its held message and it reaches Postfix.
6. POSTERN_OUTBOUND_TLS=required and a receiver that stops offering STARTTLS (a stripped path): Postern says EHLO
   and leaves without MAIL, nothing is delivered in clear; STARTTLS offered again, the message arrives over TLS (or,
   if the queue gave up on it at once, it never arrives in clear).

Needs root (Postfix, port 25) and a build with outbound delivery (.build/debug/postern or $POSTERN_BIN); run by
scripts/outbound-tests. Exit status 0 when every check passed.
"""

import os
import re
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, FormDriver, postern
from postern_testkit.jmap_agent import JMAPAgent
from postern_testkit.outbound import (
    AGENT_DOMAIN, DESTINATION, NO_MX, OutboundWorld, cli, dkim_results, header_names, parse, received_lines,
    status_of, until,
)

check = Checks()
MAILBOXES = [f"{name}@{DESTINATION}" for name in ("bob", "carol", "refused", "later", "queued", "plain")] + [
    f"dan@{NO_MX}"]
OWNER = ("owner@example.com", "owner-password-1")


def settled(agent, submission, recipient):
    """The (delivered, smtpReply) once it is no longer `queued`, else None."""
    delivered, reply = status_of(agent, submission, recipient)
    return (delivered, reply) if delivered in ("yes", "no") else None


def preflight(response, recipient):
    """False (and says why) when the build keeps outside mail in its outbox whatever the settings say: a build
    without outbound delivery, where every later check would only time out."""
    status = ((response.get("created") or {}).get("send") or {}).get("deliveryStatus", {}).get(recipient, {})
    if status.get("heldReason") == "outbound_off":
        check(False, "this build has no outbound delivery (POSTERN_OUTBOUND_DELIVERY=direct is not honoured): "
                     f"{status.get('smtpReply')}")
        return False
    return True


def delivery(world, base, env):
    alice = JMAPAgent(base, "alice-outbound")
    world.publish_dkim(base.data, AGENT_DOMAIN, env)
    before = alice.submission_state()
    bob, carol = f"bob@{DESTINATION}", f"carol@{DESTINATION}"
    response, sent = alice.send(to=[bob], bcc=[carol], subject="direct delivery", text="hello over SMTP")
    check(sent is not None, f"EmailSubmission/set created the submission ({response.get('notCreated')})")
    if not sent or not preflight(response, bob):
        return None
    check(status_of(alice, sent, bob)[0] in ("queued", "yes"), f"right after the submission bob is queued or done "
                                                              f"({status_of(alice, sent, bob)})")
    check(until(lambda: world.receiver.messages(bob) and world.receiver.messages(carol)),
          "the message is in bob's (To) and carol's (Bcc) Maildir")
    for who in (bob, carol):
        raw = (world.receiver.messages(who) or [b""])[0]
        names = header_names(raw)
        received = received_lines(raw)
        check("bcc" not in names and b"\nBcc:" not in raw, f"{who}: no Bcc header")
        if who == bob:
            check(carol.encode() not in raw.lower(), "bob's copy names the Bcc recipient nowhere")
        check("message-id" in names and "date" in names, f"{who}: Message-ID and Date present")
        check(bool(received) and re.search(r"by mx\.dest\.test \(Postfix\) with ESMTPS ", received[0]) is not None,
              f"{who}: Postfix's Received says ESMTPS ({received[:1]})")
        check(len(received) >= 2, f"{who}: Postern's own Received line below Postfix's ({received[1:2]})")
        check(parse(raw)["Return-Path"] == f"<{alice.address}>",
              f"{who}: the envelope sender is the agent's address (Return-Path {parse(raw)['Return-Path']})")
        results = dkim_results(raw, world.resolver)
        check(sorted(a for a, _, _ in results) == ["ed25519-sha256", "rsa-sha256"]
              and all(d == AGENT_DOMAIN and ok for _, d, ok in results),
              f"{who}: RSA and Ed25519 DKIM signatures of {AGENT_DOMAIN} verify with dkimpy ({results})")
    for who in (bob, carol):
        done = until(lambda: settled(alice, sent, who), 30)
        check(bool(done) and done[0] == "yes" and done[1].startswith("250"),
              f"EmailSubmission/get: {who} delivered yes with Postfix's 250 ({done})")
    name, changes = alice.submission_changes(before)
    check(name == "EmailSubmission/changes" and sent in (changes.get("created", []) + changes.get("updated", [])),
          f"EmailSubmission/changes names the submission ({name} {changes})")
    dan = f"dan@{NO_MX}"
    response, fallback = alice.send(to=[dan], subject="no MX")
    check(until(lambda: world.receiver.messages(dan)), f"{NO_MX} has no MX: delivered through its A record")
    return alice


def refused(world, alice):
    address = f"refused@{DESTINATION}"
    world.receiver.refuse(address, "550 5.1.1 no such user here")
    _, sent = alice.send(to=[address], subject="to be refused")
    done = until(lambda: settled(alice, sent, address))
    check(bool(done) and done[0] == "no" and "550" in done[1],
          f"a 550 recipient: deliveryStatus no with the remote reply ({done})")

    def dsn():
        for message in alice.inbox():
            raw = alice.download(message["blobId"])
            if b"multipart/report" in raw and b"delivery-status" in raw and address.encode() in raw:
                return raw
        return None

    raw = until(dsn)
    check(bool(raw), "a DSN (multipart/report; report-type=delivery-status) is in the sender's inbox")
    if raw:
        text = raw.decode(errors="replace")
        check(re.search(r"Final-Recipient:\s*rfc822;\s*" + re.escape(address), text, re.I) is not None
              and re.search(r"Action:\s*failed", text, re.I) is not None and re.search(r"Status:\s*5\.", text),
              "the DSN names the recipient, Action: failed and a 5.x.x Status")


def deferred(world, alice):
    address = f"later@{DESTINATION}"
    world.receiver.refuse(address, "450 4.2.0 try again later")
    _, sent = alice.send(to=[address], subject="deferred once")
    check(until(lambda: f"450 4.2.0 <{address}>" in world.receiver.log_text()),
          "Postfix answered the first attempt 450")
    check(status_of(alice, sent, address)[0] == "queued" and not world.receiver.messages(address),
          f"after the 450 the recipient is still queued ({status_of(alice, sent, address)})")
    world.receiver.accept(address)
    done = until(lambda: settled(alice, sent, address))
    check(bool(done) and done[0] == "yes", f"after the retry it is delivered ({done})")
    # Postfix's 250 comes before its own delivery into the Maildir, which lags on a busy machine (make test runs this
    # beside the other Python stages): wait for the copy to land, then count.
    until(lambda: world.receiver.messages(address), 30)
    check(len(world.receiver.messages(address)) == 1, f"exactly once ({len(world.receiver.messages(address))})")


def killed(world, env, data, alice):
    address = f"queued@{DESTINATION}"
    world.receiver.stop()
    subjects = [f"queued {i}" for i in range(5)]
    sent = []
    for subject in subjects:
        response, submission = alice.send(to=[address], subject=subject)
        sent.append(submission)
    check(all(sent), "five submissions acknowledged while the receiver is down")
    check(all(status_of(alice, s, address)[0] == "queued" for s in sent), "each is queued")
    alice.base.process.send_signal(signal.SIGKILL)
    alice.base.process.wait(timeout=30)
    code, out, err = cli(data, env, "mail", "queue")
    check(code == 0 and out.count(address) == len(subjects),
          f"after kill -9, `postern mail queue` lists the five waiting recipients ({code} {out.strip()[:300]} "
          f"{err.strip()[:200]})")
    with postern(env=env, data=data) as again:
        alice.base = again
        world.receiver.start()
        arrived = until(lambda: len(world.receiver.messages(address)) >= len(subjects), 120)
        got = sorted(parse(raw)["Subject"] for raw in world.receiver.messages(address))
        check(bool(arrived) and got == sorted(subjects), f"after the restart all five arrived, none lost, none twice "
                                                         f"({got})")
        done = [until(lambda s=s: settled(alice, s, address), 30) for s in sent]
        check(all(d and d[0] == "yes" for d in done), "and EmailSubmission/get says yes for each")


def owned(world):
    """POSTERN_OUTBOUND_SENDERS=owned, two an hour."""
    env = world.direct_env(POSTERN_OUTBOUND_SENDERS="owned", POSTERN_OUTBOUND_PER_HOUR="2")
    with postern(env=env, owners=[OWNER]) as base:
        world.publish_dkim(base.data, AGENT_DOMAIN, env)
        anonymous = JMAPAgent(base, "anon-outbound")
        bob = f"bob@{DESTINATION}"
        before = len(world.receiver.messages(bob))
        response, sent = anonymous.send(to=[bob], subject="from nobody's inbox")
        status = ((response.get("created") or {}).get("send") or {}).get("deliveryStatus", {}).get(bob, {})
        check(status.get("delivered") == "no" and status.get("heldReason") == "needs_owner"
              and "this inbox needs an owner before it can write outside" in status.get("smtpReply", ""),
              f"owned: an anonymous agent's outside recipient is held, not sent: delivered no, heldReason needs_owner, "
              f"and the reply says so in words ({status})")
        code, out, err = cli(base.data, env, "mail", "outbox")
        check(code == 0 and anonymous.address in out and bob in out
              and "held: this inbox needs an owner before it can write outside" in out,
              f"owned: `postern mail outbox` lists it, and why ({code} {out.strip()[:200]} {err.strip()[:200]})")
        held_id = out.split()[0] if out.split() else ""
        code, out, err = cli(base.data, env, "mail", "outbox", "--release", held_id)
        check(code == 0 and "still held: this inbox needs an owner before it can write outside" in out,
              f"owned: a release while the reason holds leaves it held and says why ({code} {out.strip()[:200]})")

        linked = JMAPAgent(base, "linked-outbound")
        forms = FormDriver(base)
        forms.sign_in("/owner/sign-in?next=/owner", *OWNER)
        status, _, html = forms.request("GET", "/owner")
        form = forms.forms(html).form("/owner/inboxes/link")
        status, _, _ = forms.request("POST", form["action"], forms.hidden(form) | {"api_key": linked.api_key})
        check(status == 303, f"owned: the owner linked the second agent's inbox ({status})")
        first, one = linked.send(to=[bob], subject="owned 1")
        second, two = linked.send(to=[bob], subject="owned 2")
        check(bool(one and two), "owned: the linked inbox's first two submissions are accepted")
        check(until(lambda: len(world.receiver.messages(bob)) >= before + 2), "owned: both reach Postfix")
        check(not any(parse(raw)["Subject"] == "from nobody's inbox" for raw in world.receiver.messages(bob)),
              "owned: the anonymous agent's message never reached Postfix")
        third, refused_id = linked.send(to=[bob], subject="owned 3")
        error = (third.get("notCreated") or {}).get("send") or {}
        check(refused_id is None and error.get("type") == "forbiddenToSend"
              and re.search(r"hour", error.get("description", ""), re.I) is not None,
              f"owned: the third in an hour is refused: SetError forbiddenToSend naming the limit ({error})")

        # The reason gone (the owner links the anonymous inbox too), a release queues the held message through the
        # same checks, and it reaches Postfix.
        status, _, html = forms.request("GET", "/owner")
        form = forms.forms(html).form("/owner/inboxes/link")
        status, _, _ = forms.request("POST", form["action"], forms.hidden(form) | {"api_key": anonymous.api_key})
        check(status == 303, f"owned: the owner linked the anonymous inbox ({status})")
        code, out, err = cli(base.data, env, "mail", "outbox", "--release", held_id)
        check(code == 0 and "released: 1 recipient queued to leave" in out,
              f"owned: the release is queued once the inbox has an owner ({code} {out.strip()[:200]} {err[-200:]})")
        check(until(lambda: any(parse(raw)["Subject"] == "from nobody's inbox" for raw in world.receiver.messages(bob))),
              "owned: the released message reaches Postfix")
        code, out, _ = cli(base.data, env, "mail", "outbox")
        check(code == 0 and held_id not in out, "owned: released, it has left the outbox")


def downgraded(world):
    """POSTERN_OUTBOUND_TLS=required against a receiver that stops offering STARTTLS: nothing is sent in clear; once
    STARTTLS is offered again, the message goes, over TLS."""
    address = f"plain@{DESTINATION}"
    world.receiver.offer_tls(False)
    env = world.direct_env(POSTERN_OUTBOUND_TLS="required")
    with postern(env=env) as base:
        agent = JMAPAgent(base, "tls-required")
        offset = len(world.receiver.log_text())

        def sessions_without_mail():
            return [line for line in world.receiver.log_text()[offset:].splitlines()
                    if "disconnect from" in line and "ehlo=" in line and "mail=" not in line]

        _, sent = agent.send(to=[address], subject="only over TLS")
        check(bool(until(sessions_without_mail)), "tls required: Postern connected, saw no STARTTLS, sent no MAIL")
        delivered, reply = status_of(agent, sent, address)
        check(delivered != "yes" and not world.receiver.messages(address),
              f"tls required: nothing delivered in clear ({delivered} {reply})")
        world.receiver.offer_tls(True)
        if delivered == "queued":
            arrived = until(lambda: world.receiver.messages(address))
            received = received_lines(arrived[0]) if arrived else []
            check(bool(received) and " with ESMTPS " in received[0],
                  f"tls required: once STARTTLS is offered again it is delivered over TLS ({received[:1]})")


def main():
    if os.geteuid() != 0:
        raise SystemExit("test_outbound_direct: needs root (Postfix on 127.0.0.2:25)")
    data = tempfile.mkdtemp(prefix="postern-outbound-direct-")
    try:
        with OutboundWorld(mailboxes=MAILBOXES) as world:
            env = world.direct_env()
            with postern(env=env, data=data) as base:
                alice = delivery(world, base, env)
                if alice:
                    refused(world, alice)
                    deferred(world, alice)
                    killed(world, env, data, alice)
            if alice:
                owned(world)
                downgraded(world)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    check.finish("test_outbound_direct")


if __name__ == "__main__":
    main()
