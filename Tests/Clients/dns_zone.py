"""A DNS server on loopback for the client tests, built on `dnslib` (PyPI, installed into .build/client-sdks/dnslib by
`start`): it answers TXT and MX questions from a dict the test edits while it runs, NXDOMAIN for anything else."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import pip_target


def start():
    """Installs dnslib if needed; returns (zone, server, "127.0.0.1:port"). zone[(name, "TXT" | "MX")] = [values];
    an MX value is (preference, host); a TXT value may be a list of strings (one record of several
    character-strings, as a DKIM key longer than 255 bytes needs)."""
    target = pip_target("dnslib", "dnslib==0.9.25", "dnslib")
    if target not in sys.path:
        sys.path.insert(0, target)
    from dnslib import MX, QTYPE, RCODE, RR, TXT
    from dnslib.server import BaseResolver, DNSLogger, DNSServer

    zone = {}

    class ZoneResolver(BaseResolver):
        def resolve(self, request, handler):
            reply = request.reply()
            name = str(request.q.qname).rstrip(".").lower()
            kind = QTYPE[request.q.qtype]
            values = zone.get((name, kind))
            if values is None:
                reply.header.rcode = RCODE.NXDOMAIN
                return reply
            for value in values:
                rdata = TXT(value) if kind == "TXT" else MX(value[1], value[0])
                reply.add_answer(RR(request.q.qname, request.q.qtype, rdata=rdata, ttl=60))
            return reply

    quiet = DNSLogger(logf=lambda _: None)
    server = DNSServer(ZoneResolver(), port=0, address="127.0.0.1", logger=quiet)
    server.start_thread()
    port = server.server.server_address[1]
    return zone, server, f"127.0.0.1:{port}"
