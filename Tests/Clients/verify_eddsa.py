#!/usr/bin/env python3
"""Verifies an EdDSA access token (RFC 9068 at+jwt) with Python's `cryptography`, knowing only a JWKS document.

Usage: verify_eddsa.py JWKS_FILE TOKEN. Picks the key the token's kid names, which must be an OKP Ed25519 key
published for EdDSA signatures (RFC 8037), checks the header (alg EdDSA, typ at+jwt) and the signature. Prints the
claims and exits 0 when the token verifies, prints the reason and exits 1 when it does not. Run by PosternAppTests
(`OAuthAccessTokenInteropTests`); scripts/bootstrap --test installs `cryptography`.
"""
import base64
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main(jwks_path, token):
    with open(jwks_path, encoding="utf-8") as f:
        keys = json.load(f)["keys"]
    header_text, payload_text, signature_text = token.split(".")
    header = json.loads(b64url(header_text))
    if header.get("alg") != "EdDSA" or header.get("typ") != "at+jwt":
        return f"header is not an EdDSA at+jwt header: {header}"
    matching = [k for k in keys if k.get("kid") == header.get("kid")]
    if len(matching) != 1:
        return f"{len(matching)} keys in the JWKS have the token's kid"
    jwk = matching[0]
    expected = {"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig"}
    if any(jwk.get(name) != value for name, value in expected.items()):
        return f"the token's key is not an Ed25519 signature key: {jwk}"
    public_key = Ed25519PublicKey.from_public_bytes(b64url(jwk["x"]))
    try:
        public_key.verify(b64url(signature_text), f"{header_text}.{payload_text}".encode("ascii"))
    except InvalidSignature:
        return "InvalidSignature"
    print(json.dumps(json.loads(b64url(payload_text))))
    return None


if __name__ == "__main__":
    failure = main(sys.argv[1], sys.argv[2])
    if failure:
        print(failure)
        sys.exit(1)
