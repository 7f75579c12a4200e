"""Messages for the tests that look at mail, and the two ways they reach Postern's store: SMTP (Postern's own
listener, as any sender's) and the operator's `postern mail deliver`. Standard library only.

    raw, message_id = message("bob@example.net", "alice@mail.localhost", "Hello", text="hi",
                              attachments=[("notes.txt", "text/plain", b"...")])
    deliver_smtp("127.0.0.1", server.smtp_port, "bob@example.net", ["alice@mail.localhost"], raw)
    deliver_cli(binary, ["--data-dir", data], ["alice@mail.localhost"], raw, env)
"""

import email.policy
import email.utils
import os
import smtplib
import struct
import subprocess
import tempfile
import uuid
import zlib
from email.message import EmailMessage


def png_pixel(rgb=(200, 30, 30)):
    """A valid 1x1 PNG of colour `rgb` (bytes)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" + bytes(rgb))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def message(sender, to, subject, text="", html=None, attachments=(), inline=(), headers=None):
    """(raw RFC 5322 bytes with CRLF line ends, Message-ID) of a message: a text part, an HTML alternative when
    `html`, inline parts (cid, type, bytes) that the HTML names as cid:<cid>, and attachments (file name, type,
    bytes)."""
    mail = EmailMessage(policy=email.policy.SMTP)
    message_id = "<%s@postern-tests.example>" % uuid.uuid4().hex
    mail["From"] = sender
    mail["To"] = to
    mail["Subject"] = subject
    mail["Date"] = email.utils.formatdate(localtime=False)
    mail["Message-ID"] = message_id
    for name, value in (headers or {}).items():
        mail[name] = value
    mail.set_content(text or " ")
    if html is not None:
        mail.add_alternative(html, subtype="html")
        if inline:
            html_part = mail.get_payload()[-1]
            for cid, kind, data in inline:
                maintype, subtype = kind.split("/", 1)
                html_part.add_related(data, maintype=maintype, subtype=subtype, cid="<%s>" % cid,
                                      disposition="inline", filename=cid + "." + subtype)
    for name, kind, data in attachments:
        maintype, subtype = kind.split("/", 1)
        mail.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return mail.as_bytes(), message_id


def deliver_smtp(host, port, sender, recipients, raw):
    """Sends `raw` over SMTP to `host`:`port` for `recipients`; returns smtplib's refused-recipients dict (empty when
    every recipient was taken)."""
    with smtplib.SMTP(host, port, timeout=30) as smtp:
        return smtp.sendmail(sender, recipients, raw)


def deliver_cli(binary, options, recipients, raw, env=None):
    """Stores `raw` for `recipients` with `postern mail deliver` (`options`: the server's --data-dir/--config); returns
    what it printed (the message id)."""
    with tempfile.NamedTemporaryFile(suffix=".eml", delete=False) as file:
        file.write(raw)
    try:
        arguments = [binary, "mail", "deliver", *options]
        for recipient in recipients:
            arguments += ["--to", recipient]
        result = subprocess.run(arguments + [file.name], env=env, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise AssertionError("postern mail deliver failed: %s%s" % (result.stdout, result.stderr))
        return result.stdout.strip()
    finally:
        os.unlink(file.name)
