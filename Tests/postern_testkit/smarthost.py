"""A smarthost for relay mode's tests, and a receiving MTA whose STARTTLS can be broken for direct mode's.

`Smarthost` is an `aiosmtpd` server (PyPI, installed into .build/client-sdks/aiosmtpd) on a free loopback port that
requires STARTTLS before anything else and AUTH (PLAIN or LOGIN) with the credentials the test
chose before MAIL, and records every message it takes with the session's facts (TLS, the authenticated user).

    with Smarthost(cert, key, "relay-user", "relay-pass") as relay:
        url = f"smtp://relay-user:relay-pass@127.0.0.1:{relay.port}"     # POSTERN_RELAY_URL
        ...
        relay.messages   # [Received(mail_from, rcpt_tos, content, tls, user)]

`Receiver` is an MX host on ADDRESS:25 (root binds it) offering STARTTLS with a certificate the test's CA signed;
`break_tls = True` makes it answer `220` to STARTTLS and then send bytes that are not TLS and hang up (a handshake that
fails, as behind a broken middlebox); `refuse[domain] = "450 4.2.0 ..."` answers RCPT TO for that domain so;
`stall_data` and `stall_quit` keep the reply to the end of DATA or to QUIT back while set (`stall_data` may be a
function of the message's bytes: only a message it is true of is kept waiting; counted in `stalled_data` and
`stalled_quits`: a test kills the sender mid-attempt), and a message whose client is gone by then is not taken.
It counts connections and the STARTTLS handshakes it broke, and records every message taken with whether the session
was TLS.

    with Receiver(cert, key, "127.0.0.4") as mx:
        mx.break_tls = True
        ...
        mx.messages_to("a@flaky.test")   # [Received(...)]
"""

import asyncio
import hmac
import logging
import os
import ssl
import sys
import threading
from dataclasses import dataclass

from .ports import free_port
from .server import pip_target

VERSION = "aiosmtpd==1.4.6"


@dataclass
class Received:
    """One message the smarthost took."""
    mail_from: str
    rcpt_tos: list
    content: bytes
    tls: bool
    user: str


class AiosmtpdServer:
    """What the kit's aiosmtpd servers share: aiosmtpd importable (the pinned `VERSION`, installed into the kit's pip
    target on first use), `stop()`, and `with` around `start()`. A subclass sets `self.controller` in `start()`."""

    def __init__(self):
        target = pip_target("aiosmtpd", VERSION, "aiosmtpd")
        if target not in sys.path:
            sys.path.insert(0, target)
        self.controller = None

    def stop(self):
        if self.controller:
            self.controller.stop()
            self.controller = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class Smarthost(AiosmtpdServer):
    """aiosmtpd with `require_starttls` and `auth_required` (AUTH only over TLS), on 127.0.0.1:`port` (a free one by
    default). Failed logins are counted in `refused_logins`."""

    def __init__(self, cert, key, user, password, port=None, hostname="smarthost.test"):
        super().__init__()
        self.cert, self.key, self.user, self.password = cert, key, user, password
        self.port = port or free_port()
        self.hostname = hostname
        self.messages = []
        self.refused_logins = 0
        self.lock = threading.Lock()

    def _authenticate(self, server, session, envelope, mechanism, auth_data):
        from aiosmtpd.smtp import AuthResult, LoginPassword
        if isinstance(auth_data, LoginPassword):
            good = (hmac.compare_digest(auth_data.login, self.user.encode())
                    and hmac.compare_digest(auth_data.password, self.password.encode()))
            if good:
                return AuthResult(success=True, auth_data=auth_data.login.decode())
        with self.lock:
            self.refused_logins += 1
        return AuthResult(success=False, handled=False)

    def start(self):
        from aiosmtpd.controller import Controller
        # aiosmtpd's own AUTH code still fills the deprecated Session.login_data, and logs a warning about itself.
        logging.getLogger("mail.log").setLevel(logging.ERROR)

        smarthost = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                with smarthost.lock:
                    smarthost.messages.append(Received(
                        envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.original_content or b""),
                        session.ssl is not None, str(session.auth_data or "")))
                return "250 2.0.0 Ok: taken by the smarthost"

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        self.controller = Controller(
            Handler(), hostname="127.0.0.1", port=self.port, server_hostname=self.hostname, tls_context=context,
            require_starttls=True, auth_required=True, auth_require_tls=True, authenticator=self._authenticate,
            decode_data=False)
        self.controller.start()
        return self


class Receiver(AiosmtpdServer):
    """aiosmtpd as a domain's MX on `address`:`port`: see the module's documentation."""

    def __init__(self, cert, key, address, port=25, hostname="mx.receiver.test"):
        super().__init__()
        self.cert, self.key, self.address, self.port, self.hostname = cert, key, address, port, hostname
        self.messages = []
        self.refuse = {}
        self.break_tls = False
        self.connections = 0
        self.broken_handshakes = 0
        self.refused = 0
        self.stall_data = False
        self.stall_quit = False
        self.stalled_data = 0
        self.stalled_quits = 0
        self.lock = threading.Lock()

    async def _stall(self, flag, counter, transport, content=b""):
        """Waits while the attribute `flag` is set (and, when it is a function, it is true of `content`), counting the
        stall in `counter`; whether the client is still connected afterwards."""
        value = getattr(self, flag)
        if value is True or (callable(value) and value(content)):
            with self.lock:
                setattr(self, counter, getattr(self, counter) + 1)
            while getattr(self, flag) and not transport.is_closing():
                await asyncio.sleep(0.05)
        return not transport.is_closing()

    def messages_to(self, address):
        with self.lock:
            return [m for m in self.messages if address in m.rcpt_tos]

    def start(self):
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import SMTP
        logging.getLogger("mail.log").setLevel(logging.ERROR)
        receiver = self

        class BreakableSMTP(SMTP):
            def connection_made(self, transport):
                if self.transport is None:  # a new connection, not the TLS transport STARTTLS puts on one
                    with receiver.lock:
                        receiver.connections += 1
                super().connection_made(transport)

            async def smtp_STARTTLS(self, arg):
                if not receiver.break_tls:
                    return await super().smtp_STARTTLS(arg)
                with receiver.lock:
                    receiver.broken_handshakes += 1
                await self.push("220 Ready to start TLS")
                # The client's ClientHello first (bytes before it would be an injection the client refuses, RFC 3207
                # 5), then bytes that are no ServerHello: its handshake fails.
                try:
                    await asyncio.wait_for(self._reader.read(4096), 10)
                except (asyncio.TimeoutError, ConnectionError):
                    pass
                self.transport.write(b"this is not a TLS handshake\r\n")
                self.transport.close()

            async def smtp_QUIT(self, arg):
                if await receiver._stall("stall_quit", "stalled_quits", self.transport):
                    return await super().smtp_QUIT(arg)

        class Handler:
            async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
                reply = receiver.refuse.get(address.rpartition("@")[2].lower())
                if reply:
                    with receiver.lock:
                        receiver.refused += 1
                    return reply
                envelope.rcpt_tos.append(address)
                return "250 2.1.5 OK"

            async def handle_DATA(self, server, session, envelope):
                if not await receiver._stall("stall_data", "stalled_data", server.transport,
                                             bytes(envelope.original_content or b"")):
                    return "421 4.4.2 the client left before the reply"
                with receiver.lock:
                    receiver.messages.append(Received(
                        envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.original_content or b""),
                        session.ssl is not None, ""))
                return "250 2.0.0 Ok: taken by the receiver"

        class BreakableController(Controller):
            def factory(self):
                return BreakableSMTP(self.handler, **self.SMTP_kwargs)

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        self.controller = BreakableController(
            Handler(), hostname=self.address, port=self.port, server_hostname=self.hostname, tls_context=context,
            decode_data=False)
        self.controller.start()
        return self


if __name__ == "__main__":  # a manual check: a smarthost until Enter, for swaks
    from .certificates import LocalCA
    import tempfile
    work = tempfile.mkdtemp(prefix="postern-smarthost-")
    ca = LocalCA(os.path.join(work, "ca"))
    cert, key = ca.issue("smarthost.test", ips=("127.0.0.1",))
    with Smarthost(cert, key, "relay-user", "relay-pass") as relay:
        print(f"127.0.0.1:{relay.port} CA {ca.cert}")
        input("Enter stops\n")
        print(relay.messages)
