"""What the outbound tests share: the world a Postern delivering outside meets (a CA of the test's own, the loopback
DNS server, the Postfix receiver on 127.0.0.2:25), the settings that point Postern at it, the DKIM records published
from `postern dkim show`, and the checks on a delivered message (headers, DKIM with dkimpy).

    with OutboundWorld(mailboxes=["bob@dest.test"]) as world:
        with postern(env=world.direct_env()) as base:
            world.publish_dkim(base.data, "agents.localhost")
            ...
            world.receiver.messages("bob@dest.test")
"""

import email
import email.policy
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from . import loopback_dns
from .certificates import LocalCA
from .postfix_receiver import PostfixReceiver
from .server import ROOT, install_packages

AGENT_DOMAIN = "agents.localhost"  # config/postern.env's POSTERN_AGENT_INBOX_DOMAIN
DESTINATION = "dest.test"  # MX mx.dest.test -> 127.0.0.2
NO_MX = "nomx.test"  # no MX, an A record of 127.0.0.2: RFC 5321 5.1's fallback


def binary():
    return os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))


def until(condition, seconds=60.0, step=0.1):
    """Polls `condition` until it returns a true value or `seconds` pass; returns its last value (a bound, so a
    regression fails the check instead of hanging the run)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


def cli(data, env, *arguments):
    """(exit status, stdout, stderr) of `postern ARGUMENTS --data-dir DATA` with the server's settings."""
    result = subprocess.run([binary(), *arguments, "--data-dir", data], env=dict(os.environ, **env), cwd=ROOT,
                            capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def status_of(agent, submission, recipient):
    """(delivered, smtpReply) of one recipient of one submission, from EmailSubmission/get."""
    found = agent.submissions([submission])
    status = (found[0].get("deliveryStatus") or {}).get(recipient, {}) if found else {}
    return status.get("delivered"), status.get("smtpReply", "")


def reports(agent, action):
    """The text of every delivery status report in the agent's inbox whose Action is `action`."""
    found = []
    for message in agent.inbox():
        raw = agent.download(message["blobId"])
        if b"report-type=delivery-status" in raw and re.search(rb"Action:\s*" + action.encode(), raw):
            found.append(raw.decode(errors="replace"))
    return found


def parse(raw):
    """The message (email.message.EmailMessage) of raw bytes."""
    return email.message_from_bytes(raw, policy=email.policy.default)


def received_lines(raw):
    """Every Received header of `raw`, unfolded, top first."""
    return [line for line in _head_lines(raw) if line.lower().startswith("received:")]


def _head_lines(raw):
    text = raw.decode(errors="replace").replace("\r\n", "\n").split("\n\n", 1)[0]
    return re.sub(r"\n[ \t]+", " ", text).split("\n")


def header_names(raw):
    """The lower-cased names of `raw`'s header fields, top first."""
    return [line.split(":", 1)[0].lower() for line in _head_lines(raw) if ":" in line]


class OutboundWorld:
    """A temporary directory with the CA, the DNS server (MX and A of dest.test, A of nomx.test) and the Postfix
    receiver on 127.0.0.2:25 for dest.test and nomx.test with `mailboxes`. Root only."""

    def __init__(self, mailboxes=(), receiver=True):
        self.work = tempfile.mkdtemp(prefix="postern-outbound-")
        self.ca = LocalCA(os.path.join(self.work, "ca"))
        self.zone, self.dns, self.resolver = loopback_dns.start()
        self.zone[(DESTINATION, "MX")] = [(10, "mx." + DESTINATION)]
        self.zone[("mx." + DESTINATION, "A")] = ["127.0.0.2"]
        self.zone[(NO_MX, "A")] = ["127.0.0.2"]
        self.receiver = PostfixReceiver(os.path.join(self.work, "mx"), self.ca, domains=(DESTINATION, NO_MX),
                                        mailboxes=mailboxes) if receiver else None

    def __enter__(self):
        if self.receiver:
            self.receiver.write_config()
            self.receiver.start()
        return self

    def __exit__(self, *exc):
        try:
            if self.receiver:
                self.receiver.stop()
        finally:
            self.dns.stop()
            shutil.rmtree(self.work, ignore_errors=True)

    def base_env(self):
        """What every outbound test's Postern gets: this world's resolver and CA, loopback receivers allowed,
        delivery to port 25, retries after 1 s, a fully qualified EHLO name."""
        return {
            "POSTERN_DNS_RESOLVER": self.resolver, "POSTERN_OUTBOUND_ALLOW_PRIVATE": "true",
            "POSTERN_OUTBOUND_SMTP_PORT": "25", "POSTERN_OUTBOUND_TRUST_CA_FILE": self.ca.cert,
            "POSTERN_OUTBOUND_RETRY_SECONDS": "1", "POSTERN_OUTBOUND_SENDERS": "all",
            # Delivery on refuses a name that is not fully qualified (docs/outbound.md).
            "POSTERN_SMTP_HOSTNAME": "postern.outbound.test",
        }

    def direct_env(self, **overrides):
        return self.base_env() | {"POSTERN_OUTBOUND_DELIVERY": "direct"} | overrides

    def dkim_records(self, data, domain, env):
        """[(TXT name, TXT value)] of `postern dkim show --domain DOMAIN` on the server's data directory: for each
        algorithm a line with the name, then one with the value."""
        status, out, err = cli(data, env, "dkim", "show", "--domain", domain)
        if status != 0:
            raise AssertionError(f"postern dkim show: {status} {err.strip()}")
        lines = [line.strip() for line in out.splitlines() if line.strip()]
        return list(zip(lines[0::2], lines[1::2]))

    def publish_dkim(self, data, domain, env):
        """Publishes the domain's DKIM TXT records in the zone; returns them."""
        records = self.dkim_records(data, domain, env)
        for name, value in records:
            self.zone[(name.rstrip(".").lower(), "TXT")] = [loopback_dns.txt_strings(value)]
        return records


def dkim_results(raw, resolver):
    """[(a=, d=, verified)] of every DKIM-Signature of `raw`, each checked by dkimpy (with Ed25519 through PyNaCl)
    against the TXT record the loopback DNS server at `resolver` answers for its selector."""
    install_packages("dkimpy-1.1.8", ["dkimpy[ed25519]==1.1.8"], ["dkim", "nacl"])
    import dkim

    def txt(name, timeout=5):
        name = name.decode() if isinstance(name, bytes) else name
        found = loopback_dns.query(resolver, name.rstrip("."), "TXT")
        return found[0].encode() if found else None

    message = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    verifier = dkim.DKIM(message)
    signatures = [value for name, value in verifier.headers if name.lower() == b"dkim-signature"]
    results = []
    for index, value in enumerate(signatures):
        tags = dict(item.strip().split("=", 1) for item in re.sub(rb"\s+", b"", value).decode().split(";")
                    if "=" in item)
        try:
            verified = verifier.verify(idx=index, dnsfunc=txt)
        except dkim.DKIMException as error:
            print(f"     dkimpy: signature {index}: {error}", file=sys.stderr)
            verified = False
        results.append((tags.get("a"), tags.get("d"), bool(verified)))
    return results
