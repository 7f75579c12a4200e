"""A certificate authority of a test's own, made with the openssl command line: a root the client under test is told
to trust (POSTERN_OUTBOUND_TRUST_CA_FILE), and server certificates it signs for the MTAs the test starts. Nothing is
trusted beyond the test's directory."""

import os
import subprocess


class LocalCA:
    """A root key and certificate in `directory` (made on construction); `issue` signs server certificates."""

    def __init__(self, directory, name="Postern test CA"):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self.key = os.path.join(directory, "ca.key")
        self.cert = os.path.join(directory, "ca.pem")
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", self.key, "-out", self.cert,
                 "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def issue(self, name, dns=(), ips=()):
        """(certificate path, key path) of a server certificate for `name`, with `dns` names and `ips` as subject
        alternative names (the name itself first), signed by this root."""
        stem = os.path.join(self.directory, name)
        key, request, cert = stem + ".key", stem + ".csr", stem + ".pem"
        names = ",".join([f"DNS:{n}" for n in (name, *dns)] + [f"IP:{ip}" for ip in ips])
        extensions = stem + ".ext"
        with open(extensions, "w") as out:
            out.write(f"subjectAltName={names}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", f"/CN={name}")
        _openssl("x509", "-req", "-in", request, "-CA", self.cert, "-CAkey", self.key, "-CAcreateserial", "-days", "2",
                 "-out", cert, "-extfile", extensions)
        return cert, key


def _openssl(*arguments):
    subprocess.run(["openssl", *arguments], check=True, capture_output=True)
