"""What the temp-mail client tests (mail.tm's and mail.cx's APIs, issue 72) share: their clients from PyPI, pinned,
and a message sent over SMTP to one address of a running server."""

from .mail_fixtures import deliver_smtp, message
from .server import install_packages

# The clients the tests run unchanged, and what they import at run time (mailtmapi declares no dependencies).
CLIENTS = ["pymailtm==1.1.1", "mailtmapi==1.1.0", "multitempmail==0.2.0", "httpx-sse==0.4.0", "httpx==0.28.1",
           "aiohttp==3.14.5", "pydantic==2.14.4"]
MODULES = ["pymailtm", "mailtmapi", "multitempmail", "httpx_sse", "httpx", "aiohttp", "pydantic"]


def install_clients():
    """Installs the clients into .build/client-sdks/tempmail-clients and puts them on sys.path."""
    install_packages("tempmail-clients", CLIENTS, MODULES)


def deliver(server, to, subject, text="hello", attachment=None):
    """Sends a message from `App <app@example.com>` to `to` over the server's SMTP listener, with `attachment` (a file
    name and its bytes, as application/octet-stream) when given; fails when the server refuses it."""
    attachments = [(attachment[0], "application/octet-stream", attachment[1])] if attachment else ()
    raw, _ = message("App <app@example.com>", to, subject, text=text, attachments=attachments)
    refused = deliver_smtp("127.0.0.1", server.smtp_port, "app@example.com", [to], raw)
    if refused:
        raise AssertionError(f"SMTP refused {refused}")
