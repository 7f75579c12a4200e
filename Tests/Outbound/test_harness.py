#!/usr/bin/env python3
"""The outbound tests' harness, proved with standard tools and no Postern: the loopback DNS server answers MX, A,
AAAA (none) and a long DKIM TXT (asked with dnslib's client over UDP and TCP); the private Postfix on 127.0.0.2:25
takes swaks's message over STARTTLS verified against the test's CA, its Maildir holds it with Postfix's `Received:
... with ESMTPS`, a recipient in its access map gets 550, another 450 until the map (postmap, postfix reload) takes
it; dkimpy, given the loopback DNS server's TXT records, verifies an RSA-SHA256 and an Ed25519-SHA256 signature (made
here with dkimpy and keys from `cryptography`) and refuses a message changed after signing; the aiosmtpd smarthost
refuses MAIL before STARTTLS and AUTH, refuses a wrong password, and takes swaks's message with AUTH PLAIN and with
AUTH LOGIN over STARTTLS, recording the user.

Needs root (Postfix, port 25 on 127.0.0.2). Installs postfix and swaks (with Net::SSLeay, for --tls) through
scripts/bootstrap, dnslib and aiosmtpd through pip --target into .build/client-sdks/. Exit status 0 when every check
passed.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, loopback_dns
from postern_testkit.certificates import LocalCA
from postern_testkit.outbound import dkim_results
from postern_testkit.postfix_receiver import PostfixReceiver
from postern_testkit.smarthost import Smarthost

check = Checks()


def ensure_swaks():
    """swaks with TLS (Debian's swaks needs libnet-ssleay-perl for --tls)."""
    subprocess.run([os.path.join(ROOT, "scripts", "bootstrap"), "swaks", "libnet-ssleay-perl"], check=True)


def swaks(*arguments):
    """(exit status, transcript) of one swaks run."""
    result = subprocess.run(["swaks", "--timeout", "20", *arguments], capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def until(condition, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def dns():
    zone, server, resolver = loopback_dns.start()
    try:
        value = "v=DKIM1; k=rsa; p=" + "M" * 392
        zone[("dest.test", "MX")] = [(10, "mx.dest.test")]
        zone[("mx.dest.test", "A")] = ["127.0.0.2"]
        zone[("sel._domainkey.sender.test", "TXT")] = [loopback_dns.txt_strings(value)]
        check(loopback_dns.query(resolver, "dest.test", "MX") == [(10, "mx.dest.test")], "dns: MX dest.test")
        check(loopback_dns.query(resolver, "mx.dest.test", "A") == ["127.0.0.2"], "dns: A mx.dest.test")
        check(loopback_dns.query(resolver, "mx.dest.test", "AAAA") == [], "dns: no AAAA for mx.dest.test (NODATA)")
        check(loopback_dns.query(resolver, "nowhere.test", "A") == [], "dns: NXDOMAIN for a name not in the zone")
        check(loopback_dns.query(resolver, "sel._domainkey.sender.test", "TXT") == [value],
              "dns: a 410-byte DKIM TXT comes back whole (several character-strings joined)")
    finally:
        server.stop()


def dkim_check():
    """The verifier the end-to-end tests use, on signatures of known keys: both algorithms pass, a change fails."""
    import base64
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

    zone, server, resolver = loopback_dns.start()
    try:
        dkim_results(b"From: a@b\r\n\r\nx\r\n", resolver)  # installs dkimpy and PyNaCl
        import dkim
        rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        ed_key = ed25519.Ed25519PrivateKey.generate()
        rsa_public = rsa_key.public_key().public_bytes(serialization.Encoding.DER,
                                                       serialization.PublicFormat.SubjectPublicKeyInfo)
        ed_public = ed_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        zone[("r1._domainkey.sender.test", "TXT")] = [loopback_dns.txt_strings(
            "v=DKIM1; k=rsa; p=" + base64.b64encode(rsa_public).decode())]
        zone[("e1._domainkey.sender.test", "TXT")] = ["v=DKIM1; k=ed25519; p=" + base64.b64encode(ed_public).decode()]
        message = (b"From: <alice@sender.test>\r\nTo: <bob@dest.test>\r\nSubject: signed\r\n"
                   b"Date: Wed, 25 Nov 2026 23:00:00 +0000\r\nMessage-ID: <1@sender.test>\r\n\r\nhello\r\n")
        rsa_pem = rsa_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                        serialization.NoEncryption())
        ed_seed = base64.b64encode(ed_key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                                        serialization.NoEncryption()))
        signed = dkim.sign(message, b"e1", b"sender.test", ed_seed, signature_algorithm=b"ed25519-sha256",
                           include_headers=[b"from", b"to", b"subject"]) + message
        signed = dkim.sign(signed, b"r1", b"sender.test", rsa_pem,
                           include_headers=[b"from", b"to", b"subject"]) + signed
        results = dkim_results(signed, resolver)
        check(sorted(results) == [("ed25519-sha256", "sender.test", True), ("rsa-sha256", "sender.test", True)],
              f"dkim: dkimpy verifies RSA and Ed25519 signatures from the loopback DNS's TXT ({results})")
        tampered = dkim_results(signed.replace(b"hello", b"hullo"), resolver)
        check([verified for _, _, verified in tampered] == [False, False],
              f"dkim: ... and neither verifies once the body changed ({tampered})")
    finally:
        server.stop()


def postfix(work, ca):
    mailboxes = ["bob@dest.test", "carol@dest.test", "refused@dest.test", "later@dest.test"]
    with PostfixReceiver(os.path.join(work, "mx"), ca, mailboxes=mailboxes) as mx:
        mx.refuse("refused@dest.test", "550 5.1.1 no such user here")
        mx.refuse("later@dest.test", "450 4.2.0 try again later")
        base = ["--server", "127.0.0.2:25", "--from", "alice@sender.test", "--tls", "--tls-verify", "--tls-ca-path",
                ca.cert]
        status, transcript = swaks(*base, "--to", "bob@dest.test", "--header", "Subject: harness")
        check(status == 0 and "TLS started" in transcript and "250 2.0.0 Ok: queued" in transcript,
              f"postfix: swaks --tls (certificate verified against the test CA) is taken ({status})")
        check(until(lambda: len(mx.messages("bob@dest.test")) == 1), "postfix: the message is in bob's Maildir")
        received = (mx.messages("bob@dest.test") or [b""])[0].decode(errors="replace")
        head = received.split("\n\n", 1)[0].replace("\n\t", " ").replace("\n ", " ")
        check(re.search(r"^Received: from .* by mx\.dest\.test \(Postfix\) with ESMTPS ", head, re.M) is not None,
              "postfix: its Received line says ESMTPS")
        status, transcript = swaks("--server", "127.0.0.2:25", "--from", "alice@sender.test",
                                   "--to", "carol@dest.test")
        check(status == 0, f"postfix: a plain session is taken too (TLS is offered, not required) ({status})")
        check(until(lambda: len(mx.messages("carol@dest.test")) == 1)
              and b"with ESMTP id" in mx.messages("carol@dest.test")[0], "postfix: ... and its Received says ESMTP")
        status, transcript = swaks(*base, "--to", "refused@dest.test")
        check(status != 0 and "550 5.1.1 <refused@dest.test>" in transcript, "postfix: 550 from the access map")
        status, transcript = swaks(*base, "--to", "later@dest.test")
        check(status != 0 and "450 4.2.0 <later@dest.test>" in transcript, "postfix: 450 from the access map")
        mx.accept("later@dest.test")
        status, transcript = swaks(*base, "--to", "later@dest.test")
        check(status == 0, f"postfix: after postmap and reload the 450 address is taken ({status})")
        check(until(lambda: len(mx.messages("later@dest.test")) == 1), "postfix: ... and delivered once")
        status, transcript = swaks(*base, "--to", "unknown@dest.test")
        check(status != 0 and "550 5.1.1 <unknown@dest.test>" in transcript, "postfix: an unknown address gets 550")
        mx.offer_tls(False)
        status, transcript = swaks(*base, "--to", "bob@dest.test")
        check(status != 0 and "STARTTLS" not in transcript.split("EHLO", 1)[-1].split("\n -> ", 1)[0],
              f"postfix: offer_tls(False): no STARTTLS in the EHLO reply, swaks --tls gives up ({status})")
        offset = len(mx.log_text())
        status, _ = swaks("--server", "127.0.0.2:25", "--to", "bob@dest.test", "--quit-after", "EHLO")

        def quits():
            return [line for line in mx.log_text()[offset:].splitlines()
                    if "disconnect from" in line and "ehlo=" in line and "mail=" not in line]

        check(status == 0 and bool(until(quits)),
              f"postfix: a session that leaves after EHLO is logged as a disconnect without mail= ({until(quits)})")
        mx.offer_tls(True)
        status, transcript = swaks(*base, "--to", "bob@dest.test")
        check(status == 0 and until(lambda: len(mx.messages("bob@dest.test")) == 2),
              f"postfix: offer_tls(True): STARTTLS again ({status})")
        mx.stop()
        status, _ = swaks("--server", "127.0.0.2:25", "--to", "bob@dest.test")
        check(status != 0, "postfix: stopped, nothing answers on 127.0.0.2:25")
        mx.start()
        status, _ = swaks(*base, "--to", "bob@dest.test")
        check(status == 0 and until(lambda: len(mx.messages("bob@dest.test")) == 3),
              "postfix: started again, it takes mail")


def smarthost(ca):
    cert, key = ca.issue("smarthost.test", ips=("127.0.0.1",))
    with Smarthost(cert, key, "relay-user", "relay-pass-1") as relay:
        server = ["--server", f"127.0.0.1:{relay.port}", "--from", "alice@sender.test", "--to", "bob@dest.test"]
        status, transcript = swaks(*server)
        check(status != 0 and "530" in transcript, f"smarthost: MAIL before STARTTLS is refused ({status})")
        status, transcript = swaks(*server, "--tls")
        check(status != 0 and "530" in transcript and not relay.messages, "smarthost: MAIL without AUTH is refused")
        status, transcript = swaks(*server, "--tls", "--auth", "PLAIN", "--auth-user", "relay-user",
                                   "--auth-password", "wrong")
        check(status != 0 and "535" in transcript and relay.refused_logins == 1, "smarthost: a wrong password: 535")
        for mechanism in ("PLAIN", "LOGIN"):
            status, transcript = swaks(*server, "--tls", "--tls-verify", "--tls-ca-path", ca.cert, "--auth", mechanism,
                                       "--auth-user", "relay-user", "--auth-password", "relay-pass-1",
                                       "--header", f"Subject: via {mechanism}")
            check(status == 0, f"smarthost: AUTH {mechanism} over STARTTLS, message taken ({status})")
        taken = relay.messages
        check(len(taken) == 2 and all(m.tls and m.user == "relay-user" and m.rcpt_tos == ["bob@dest.test"]
                                      and m.mail_from == "alice@sender.test" for m in taken)
              and b"Subject: via LOGIN" in taken[1].content,
              "smarthost: it recorded both with TLS, the user, the envelope and the content")


def main():
    if os.geteuid() != 0:
        raise SystemExit("test_harness: needs root (Postfix, port 25)")
    ensure_swaks()
    work = tempfile.mkdtemp(prefix="postern-outbound-harness-")
    try:
        ca = LocalCA(os.path.join(work, "ca"))
        dns()
        dkim_check()
        postfix(work, ca)
        smarthost(ca)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    check.finish("test_harness")


if __name__ == "__main__":
    main()
