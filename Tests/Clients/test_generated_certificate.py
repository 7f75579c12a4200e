"""The self-signed certificate a server makes in its data directory when no operator certificate is set (`make run`'s,
issue 83 item 4): with it as the CA file, OpenSSL's own client verifies the server reached as `127.0.0.1` (IP name),
as `localhost`, and the certificate names `::1` and the public URL's host; a data directory that kept a certificate
naming `localhost` alone gets one naming them all at the next start. Against real `postern serve --profile test`
processes with IMAP on (IMAPS on a free port), through `openssl s_client` and Python's ssl with host checking on."""

import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern  # noqa: E402

check = Checks()
SETTINGS = {"POSTERN_IMAP": "on", "POSTERN_IMAPS_PORT": "0", "POSTERN_PUBLIC_URL": "http://mail.example.test:8025"}


def s_client(port, ca, *verify):
    """`openssl s_client` to 127.0.0.1:`port` with `ca` and the verification flags; (exit status, its output)."""
    done = subprocess.run(
        ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", ca, "-verify_return_error", "-brief",
         *verify], input=b"", capture_output=True, timeout=60)
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace")


def offline(ca, *verify):
    """`openssl verify` of the certificate against itself as the CA, with the name checks `verify`."""
    done = subprocess.run(["openssl", "verify", "-CAfile", ca, *verify, ca], capture_output=True, timeout=60)
    return done.returncode == 0


def verifies(server, label):
    ca = os.path.join(server.data, "smtp-tls-cert.pem")
    check(os.path.exists(ca), f"{label}: the data directory holds smtp-tls-cert.pem")
    for flags in (["-verify_ip", "127.0.0.1"], ["-verify_hostname", "127.0.0.1"], ["-verify_hostname", "localhost"]):
        status, output = s_client(server.imaps_port, ca, *flags)
        check(status == 0 and "Verification: OK" in output,
              f"{label}: openssl s_client {' '.join(flags)} verifies with the generated CA ({output.strip()[-160:]})")
    for flags in (["-verify_ip", "::1"], ["-verify_hostname", "mail.example.test"]):
        check(offline(ca, *flags), f"{label}: the certificate names {flags[1]}")
    check(not offline(ca, "-verify_hostname", "elsewhere.example.test"), f"{label}: and not another host")
    context = ssl.create_default_context(cafile=ca)  # check_hostname on: 127.0.0.1 must be an IP name
    try:
        with socket.create_connection(("127.0.0.1", server.imaps_port), timeout=30) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                greeting = tls.recv(200)
    except ssl.SSLError as error:
        greeting = str(error).encode()
    check(greeting.startswith(b"* OK"),
          f"{label}: Python's ssl, host checked, reads the IMAPS greeting ({greeting[:80]})")


with postern(SETTINGS) as server:
    verifies(server, "a new data directory")

# A data directory from before: its certificate names localhost alone (as the server made it then).
data = tempfile.mkdtemp(prefix="postern-old-certificate-")
try:
    old = os.path.join(data, "smtp-tls-cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", os.path.join(data, "smtp-tls-key.pem"), "-out", old, "-days", "30",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    check(not offline(old, "-verify_ip", "127.0.0.1"), "the old certificate does not name 127.0.0.1")
    with postern(SETTINGS, data=data) as server:
        verifies(server, "a data directory with a localhost-only certificate")
finally:
    shutil.rmtree(data, ignore_errors=True)

check.finish("test_generated_certificate")
