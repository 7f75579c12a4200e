"""A receiving MX for the queue tests: an `aiosmtpd` server (PyPI, installed into .build/client-sdks/aiosmtpd) on a
free loopback port, plain SMTP (no STARTTLS, no AUTH: a sender's opportunistic TLS goes on in clear), taking mail for
any address and keeping, for each message it answered 250, the Message-ID, the recipients and the EHLO name of the
client that sent it.

It can hold one client's messages: once `hold(name, after=N)` is set and N messages of the client named `name` (its
EHLO name) were taken, the client's next messages wait at the end of DATA without an answer until `release(name)`. A
client that goes away meanwhile (killed) never gets its 250 and none of its held messages is taken; aiosmtpd cancels
the held answer when it sees the connection lost, which is not at once: after killing a client, wait for
`unheld(name)` before `release(name)`, or a held message whose loss the event loop has not read yet is taken.
`hold(other, until_held=name)` holds the client `other` from its first message until one of `name`'s waits, and then
releases it for good: two senders draw from one queue, and the one to be held must reach its hold before the other has
taken everything, however the machine schedules them.

    with CountingMX() as mx:          # mx.port: POSTERN_OUTBOUND_SMTP_PORT; the MX host's A record: 127.0.0.1
        mx.hold("one.test", after=40)
        ...
        mx.held("one.test")           # the Message-IDs of one.test's messages waiting for an answer now
        mx.taken                      # [Taken(message_id, rcpt_tos, client, at)]
"""

import asyncio
import email.parser
import email.policy
import logging
import threading
import time
from dataclasses import dataclass

from .ports import free_port
from .smarthost import AiosmtpdServer



@dataclass
class Taken:
    """One message the MX answered 250."""
    message_id: str
    rcpt_tos: list
    client: str
    at: float  # time.monotonic() when it was answered


class CountingMX(AiosmtpdServer):
    """aiosmtpd on 127.0.0.1:`port` (a free one by default), keeping what it takes in `taken`."""

    def __init__(self, port=None, hostname="mx.test"):
        super().__init__()
        self.port = port or free_port()
        self.hostname = hostname
        self.taken = []
        self.lock = threading.Lock()
        self._holds = {}  # EHLO name -> messages of it taken before its next ones wait
        self._until = {}  # EHLO name -> the EHLO name whose first held message releases it
        self._held = {}  # EHLO name -> the Message-IDs of its messages waiting for an answer now

    def hold(self, client, after=0, until_held=None):
        """From the `after`-th message of `client` on (counting those taken already), its messages wait; with
        `until_held`, only until a message of that client waits, and then never again."""
        with self.lock:
            self._holds[client] = after
            if until_held is not None:
                self._until[client] = until_held

    def release(self, client):
        """The held messages of `client` are answered (and taken) if their connection is still open."""
        with self.lock:
            self._holds.pop(client, None)
            self._until.pop(client, None)

    def held(self, client):
        """The Message-IDs of `client`'s messages waiting for an answer now."""
        with self.lock:
            return list(self._held.get(client, []))

    def unheld(self, client, timeout=10.0):
        """Waits until none of `client`'s messages waits for an answer (after its kill: the event loop has seen every
        connection of it lost); False when some still wait after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while self.held(client):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def taken_from(self, client):
        with self.lock:
            return [t for t in self.taken if t.client == client]

    def _holding(self, client):
        with self.lock:
            if self._held.get(self._until.get(client)):
                self._holds.pop(client, None)
                self._until.pop(client, None)
            after = self._holds.get(client)
            return after is not None and sum(t.client == client for t in self.taken) >= after

    def start(self):
        from aiosmtpd.controller import Controller
        logging.getLogger("mail.log").setLevel(logging.ERROR)
        mx = self
        parser = email.parser.BytesHeaderParser(policy=email.policy.default)

        def gone(server):
            return server.transport is None or server.transport.is_closing()

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                client = session.host_name or ""
                headers = parser.parsebytes(bytes(envelope.original_content or b""))
                message_id = str(headers.get("Message-ID", "")).strip()
                if mx._holding(client):
                    with mx.lock:
                        mx._held.setdefault(client, []).append(message_id)
                    try:
                        while mx._holding(client) and not gone(server):
                            await asyncio.sleep(0.02)  # cancelled when the client goes away
                    finally:
                        with mx.lock:
                            mx._held[client].remove(message_id)
                    if gone(server):
                        return "421 4.3.2 the client went away"
                with mx.lock:
                    mx.taken.append(Taken(message_id, list(envelope.rcpt_tos), client, time.monotonic()))
                return "250 2.0.0 Ok: taken"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port, server_hostname=self.hostname,
                                     decode_data=False)
        self.controller.start()
        return self

    def stop(self):
        if self.controller:
            with self.lock:
                self._holds.clear()
                self._until.clear()
        super().stop()
