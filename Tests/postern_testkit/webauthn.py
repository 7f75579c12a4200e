"""A software WebAuthn authenticator for the passkey tests (issue 56): what a browser would send, and what no browser
will (a wrong origin or RP ID hash, UV clear, a COSE key whose `alg` is not its type's, truncated or over-deep CBOR).
ES256 (DER signatures), EdDSA (Ed25519) and RS256 credentials, discoverable, with attestation `none`. Needs
`cryptography` and `cbor2` (`install_packages("webauthn", ["cbor2==5.6.5"], ["cbor2"])` first).

    key = SoftwareAuthenticator("es256", rp_id="example.com", origin="https://example.com")
    credential = key.register(options)               # options: the server's creation options (JSON, parsed)
    assertion = key.sign_in(options, user_handle)    # options: the server's request options

Each returns the `PublicKeyCredential` JSON a browser's script posts (binary members base64url). Keyword arguments
forge one part: `origin`, `rp_id`, `flags`, `sign_count`, `alg` (the COSE key's), `attestation` (raw CBOR bytes),
`extensions` (raw CBOR bytes after the authenticator data, with the ED flag).
"""

import base64
import hashlib
import json
import os
import struct

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

UP, UV, BE, BS, AT, ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80
ALGORITHMS = {"es256": -7, "eddsa": -8, "rs256": -257}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def deep_cbor(depth):
    """`depth` nested one-element arrays around 0: canonical, definite, and deeper than any limit."""
    return bytes([0x81] * depth) + b"\x00"


class SoftwareAuthenticator:
    """One discoverable credential of `kind` (es256, eddsa, rs256) for `rp_id`, used from `origin`."""

    def __init__(self, kind, rp_id, origin, synced=False):
        self.kind, self.rp_id, self.origin, self.synced = kind, rp_id, origin, synced
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.user_handle = None
        if kind == "es256":
            self.key = ec.generate_private_key(ec.SECP256R1())
        elif kind == "eddsa":
            self.key = ed25519.Ed25519PrivateKey.generate()
        elif kind == "rs256":
            self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            raise ValueError(kind)

    def cose_key(self, alg=None):
        """The COSE_Key of the public key, with `alg` in place of its own when given."""
        alg = ALGORITHMS[self.kind] if alg is None else alg
        public = self.key.public_key()
        if self.kind == "es256":
            numbers = public.public_numbers()
            key = {1: 2, 3: alg, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        elif self.kind == "eddsa":
            raw = public.public_bytes_raw()
            key = {1: 1, 3: alg, -1: 6, -2: raw}
        else:
            numbers = public.public_numbers()
            key = {1: 3, 3: alg, -1: numbers.n.to_bytes(256, "big"), -2: numbers.e.to_bytes(3, "big")}
        return cbor2.dumps(key, canonical=True)

    def sign(self, message):
        if self.kind == "es256":
            return self.key.sign(message, ec.ECDSA(hashes.SHA256()))
        if self.kind == "eddsa":
            return self.key.sign(message)
        return self.key.sign(message, padding.PKCS1v15(), hashes.SHA256())

    def client_data(self, kind, challenge, origin=None):
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin or self.origin,
                           "crossOrigin": False}, separators=(",", ":")).encode()

    def authenticator_data(self, flags, sign_count, rp_id=None, attested=b"", extensions=b""):
        rp_hash = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", sign_count) + attested + extensions

    def default_flags(self):
        return UP | UV | ((BE | BS) if self.synced else 0)

    def register(self, options, origin=None, rp_id=None, flags=None, alg=None, attestation=None):
        """The registration credential for creation `options` (the server's JSON)."""
        self.user_handle = unb64url(options["user"]["id"])
        client_data = self.client_data("webauthn.create", options["challenge"], origin)
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self.cose_key(alg)
        flags = (self.default_flags() | AT) if flags is None else flags
        data = self.authenticator_data(flags, self.counter, rp_id, attested)
        if attestation is None:
            attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data}, canonical=True)
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation),
                             "transports": ["internal"]}}

    def sign_in(self, options, origin=None, rp_id=None, flags=None, sign_count=None, extensions=b"",
                credential_id=None, user_handle=None):
        """The assertion for request `options`; the counter moves on by one unless `sign_count` is given."""
        if sign_count is None:
            self.counter += 1
            sign_count = self.counter
        client_data = self.client_data("webauthn.get", options["challenge"], origin)
        flags = self.default_flags() if flags is None else flags
        if extensions:
            flags |= ED
        data = self.authenticator_data(flags, sign_count, rp_id, extensions=extensions)
        signature = self.sign(data + hashlib.sha256(client_data).digest())
        raw_id = credential_id or self.credential_id
        handle = user_handle if user_handle is not None else self.user_handle
        response = {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(data),
                    "signature": b64url(signature)}
        if handle:
            response["userHandle"] = b64url(handle)
        return {"id": b64url(raw_id), "rawId": b64url(raw_id), "type": "public-key", "response": response}
