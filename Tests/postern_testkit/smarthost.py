"""A smarthost for relay mode's tests: an `aiosmtpd` server (PyPI, installed into .build/client-sdks/aiosmtpd) on a free
loopback port that requires STARTTLS before anything else and AUTH (PLAIN or LOGIN) with the credentials the test
chose before MAIL, and records every message it takes with the session's facts (TLS, the authenticated user).

    with Smarthost(cert, key, "relay-user", "relay-pass") as relay:
        url = f"smtp://relay-user:relay-pass@127.0.0.1:{relay.port}"     # POSTERN_RELAY_URL
        ...
        relay.messages   # [Received(mail_from, rcpt_tos, content, tls, user)]
"""

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


class Smarthost:
    """aiosmtpd with `require_starttls` and `auth_required` (AUTH only over TLS), on 127.0.0.1:`port` (a free one by
    default). Failed logins are counted in `refused_logins`."""

    def __init__(self, cert, key, user, password, port=None, hostname="smarthost.test"):
        target = pip_target("aiosmtpd", VERSION, "aiosmtpd")
        if target not in sys.path:
            sys.path.insert(0, target)
        self.cert, self.key, self.user, self.password = cert, key, user, password
        self.port = port or free_port()
        self.hostname = hostname
        self.messages = []
        self.refused_logins = 0
        self.lock = threading.Lock()
        self.controller = None

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

    def stop(self):
        if self.controller:
            self.controller.stop()
            self.controller = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


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
