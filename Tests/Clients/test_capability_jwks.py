"""Capability JWTs, as the signing path mints them (RS256 on signing contexts set up once per key and reused, issue
69), verified by Python's `cryptography` knowing only the published JWKS: the key the token's kid names must be an
RSA signature key of /.well-known/jwks.json, and its n and e must verify the RSASSA-PKCS1-v1_5 SHA-256 signature.

Forty capabilities are asked for by eight threads at once, so that the server signs on both of its worker threads,
with contexts kept from earlier signatures and contexts duplicated when all are in use; each one must verify, carry
the claims of its agent, and stop verifying when one byte of its payload changes.
"""

import base64
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, agent_signup, http, postern

check = Checks()


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def integer(text):
    return int.from_bytes(b64url(text), "big")


def verify(jwks, token):
    """The claims of `token` when the JWKS key its kid names verifies it; the reason as a string when not."""
    header_text, payload_text, signature_text = token.split(".")
    header = json.loads(b64url(header_text))
    if header.get("alg") != "RS256" or header.get("typ") != "JWT":
        return f"header is not an RS256 JWT header: {header}"
    matching = [k for k in jwks["keys"] if k.get("kid") == header.get("kid")]
    if len(matching) != 1:
        return f"{len(matching)} keys in the JWKS have the token's kid"
    jwk = matching[0]
    if jwk.get("kty") != "RSA" or jwk.get("alg") != "RS256" or jwk.get("use") != "sig":
        return f"the token's key is not an RSA signature key: {jwk}"
    public_key = rsa.RSAPublicNumbers(integer(jwk["e"]), integer(jwk["n"])).public_key()
    try:
        public_key.verify(b64url(signature_text), f"{header_text}.{payload_text}".encode("ascii"),
                          padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return "InvalidSignature"
    return json.loads(b64url(payload_text))


def tampered(token):
    """`token` with one character of its payload changed (still base64url, so only the signature can refuse it)."""
    header, payload, signature = token.split(".")
    middle = len(payload) // 2
    swapped = "A" if payload[middle] != "A" else "B"
    return f"{header}.{payload[:middle]}{swapped}{payload[middle + 1:]}.{signature}"


def unless(passed, detail):
    """`detail` for a failed check's line; nothing when it passed (the answers hold keys and tokens)."""
    return "" if passed else f" ({detail})"


def main():
    with postern() as base:
        status, body, session = agent_signup(base, "jwks-agent")
        check(status == 201, "agent signup answers 201" + unless(status == 201, f"got {status} {body}"))
        inbox = body["inbox"]

        def capability(_):
            status, head, _ = http(base, "POST", "/api/v1/capability", bearer=session)
            return status, head.get("Authorization", " ").split(" ", 1)[1]

        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(capability, range(40)))
        statuses = [status for status, _ in answers]
        check(statuses == [200] * 40,
              "40 capabilities asked for by 8 threads at once answer 200" + unless(statuses == [200] * 40, statuses))

        status, _, jwks = http(base, "GET", "/.well-known/jwks.json")
        check(status == 200 and isinstance(jwks, dict), f"GET /.well-known/jwks.json answers 200 (got {status})")

        tokens = [token for status, token in answers if status == 200]
        results = [verify(jwks, token) for token in tokens]
        refused = [r for r in results if not isinstance(r, dict)]
        check(tokens and not refused,
              "every capability verifies with the JWKS's RSA key, by cryptography" + unless(not refused, refused[:3]))
        expected = {"iss": base.rstrip("/"), "pur": "capability", "scope": "jmap", "inboxId": inbox}
        wrong = [r for r in results if isinstance(r, dict) and any(r.get(k) != v for k, v in expected.items())]
        check(not wrong, f"every capability carries its agent's claims {expected}" + unless(not wrong, wrong[:1]))
        check(len({r.get("jti") for r in results if isinstance(r, dict)}) == len(tokens),
              "every capability has a jti of its own")
        check(all(r.get("exp", 0) - r.get("iat", 0) == 120 for r in results if isinstance(r, dict)),
              "every capability lives 120 s")
        forged = [verify(jwks, tampered(token)) for token in tokens[:5]]
        check(forged and all(r == "InvalidSignature" for r in forged),
              f"a capability with one payload character changed does not verify ({forged})")

        # The server takes what cryptography verified: JMAP's session resource answers the token.
        status, _, session_resource = http(base, "GET", "/.well-known/jmap", bearer=tokens[0])
        check(status == 200,
              "GET /.well-known/jmap takes a capability" + unless(status == 200, f"got {status} {session_resource}"))
    check.finish("test_capability_jwks")


if __name__ == "__main__":
    main()
