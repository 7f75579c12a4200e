"""A DNS server on loopback for the tests, built on `dnslib` (PyPI, installed into .build/client-sdks/dnslib by
`start`): it answers MX, A, AAAA and TXT questions from a dict the test edits while it runs.

A name the zone holds under some type answers a type it does not hold with no records (NOERROR, NODATA: what a mail
host with an A record and no AAAA answers); a name it holds under no type answers NXDOMAIN. UDP and TCP both, on the
same free port of 127.0.0.1, so that a resolver retrying a truncated answer over TCP finds it too.

    zone, server, resolver = start()          # resolver: "127.0.0.1:PORT", for POSTERN_DNS_RESOLVER
    zone[("dest.test", "MX")] = [(10, "mx.dest.test")]
    zone[("mx.dest.test", "A")] = ["127.0.0.2"]
    zone[("sel._domainkey.d.test", "TXT")] = [txt_strings(value)]   # one record of several character-strings
    query(resolver, "sel._domainkey.d.test", "TXT")                 # -> ["v=DKIM1; ..."], a client of the same
"""

import errno
import os
import sys

from .server import pip_target

VERSION = "dnslib==0.9.25"


def _dnslib():
    target = pip_target("dnslib", VERSION, "dnslib")
    if target not in sys.path:
        sys.path.insert(0, target)


def txt_strings(value, size=250):
    """`value` cut into character-strings of at most `size` bytes: one TXT record (RFC 1035 3.3.14 caps a string at
    255), as a DKIM RSA key's record needs; their concatenation is the value."""
    return [value[i:i + size] for i in range(0, len(value), size)] or [""]


def start():
    """Installs dnslib if needed; returns (zone, server, "127.0.0.1:port"). zone[(name, "TXT" | "MX" | "A" |
    "AAAA")] = [values]; an MX value is (preference, host); an A or AAAA value an address string; a TXT value a
    string, or a list of strings (one record of several character-strings, as a DKIM key longer than 255 bytes
    needs). `server.stop()` stops both listeners."""
    _dnslib()
    from dnslib import AAAA, MX, QTYPE, RCODE, RR, TXT, A
    from dnslib.server import BaseResolver, DNSLogger, DNSServer

    zone = {}
    kinds = {"TXT": TXT, "A": A, "AAAA": AAAA}

    class ZoneResolver(BaseResolver):
        def resolve(self, request, handler):
            reply = request.reply()
            name = str(request.q.qname).rstrip(".").lower()
            kind = QTYPE[request.q.qtype]
            snapshot = dict(zone)  # the test may edit the zone while a question is answered
            values = snapshot.get((name, kind))
            if values is None:
                if not any(held == name for held, _ in snapshot):
                    reply.header.rcode = RCODE.NXDOMAIN
                return reply
            for value in values:
                rdata = MX(value[1], value[0]) if kind == "MX" else kinds[kind](value)
                reply.add_answer(RR(request.q.qname, request.q.qtype, rdata=rdata, ttl=60))
            return reply

    quiet = DNSLogger(logf=lambda _: None)
    # The kernel picks a free UDP port; the same number may be taken for TCP (another test's listener): then another.
    for attempt in range(50):
        udp = DNSServer(ZoneResolver(), port=0, address="127.0.0.1", logger=quiet)
        port = udp.server.server_address[1]
        try:
            tcp = DNSServer(ZoneResolver(), port=port, address="127.0.0.1", logger=quiet, tcp=True)
            break
        except OSError as error:
            udp.server.server_close()
            if error.errno != errno.EADDRINUSE or attempt == 49:
                raise
    udp.start_thread()
    tcp.start_thread()
    return zone, _Both(udp, tcp), f"127.0.0.1:{port}"


class _Both:
    """The UDP and TCP listeners of one port, stopped together."""

    def __init__(self, udp, tcp):
        self.udp, self.tcp = udp, tcp
        self.server = udp.server  # as dnslib's DNSServer: server.server_address

    def stop(self):
        self.udp.stop()
        self.tcp.stop()


def query(resolver, name, kind):
    """The answers a DNS server ("host:port") gives for `name` and `kind` ("TXT", "MX", "A", "AAAA"): a TXT record's
    character-strings joined into one string, an MX as (preference, host), an address as a string; [] for NODATA or
    NXDOMAIN. Asked over UDP, then over TCP when the answer came back truncated."""
    _dnslib()
    from dnslib import QTYPE, DNSRecord

    host, _, port = resolver.rpartition(":")
    question = DNSRecord.question(name, kind)
    answer = DNSRecord.parse(question.send(host, int(port), timeout=5))
    if answer.header.tc:
        answer = DNSRecord.parse(question.send(host, int(port), tcp=True, timeout=5))
    values = []
    for record in answer.rr:
        if QTYPE[record.rtype] != kind:
            continue
        if kind == "TXT":
            values.append(b"".join(record.rdata.data).decode())
        elif kind == "MX":
            values.append((record.rdata.preference, str(record.rdata.label).rstrip(".")))
        else:
            values.append(str(record.rdata))
    return values


if __name__ == "__main__":  # a manual check: serve a zone, ask it with this module's client (or dig)
    zone, server, resolver = start()
    zone[("dest.test", "MX")] = [(10, "mx.dest.test")]
    zone[("mx.dest.test", "A")] = ["127.0.0.2"]
    zone[("sel._domainkey.dest.test", "TXT")] = [txt_strings("v=DKIM1; k=rsa; p=" + "A" * 400)]
    print(resolver, query(resolver, "dest.test", "MX"), query(resolver, "mx.dest.test", "A"),
          query(resolver, "mx.dest.test", "AAAA"), len(query(resolver, "sel._domainkey.dest.test", "TXT")[0]),
          file=sys.stderr)
    if os.environ.get("LOOPBACK_DNS_WAIT"):
        input("serving; Enter stops\n")
    server.stop()
