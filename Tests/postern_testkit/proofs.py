"""The two proofs of work and the signups that need them: the agent surface's scrypt proof
(`POST /api/v1/challenge` -> `POST /api/v1/session`) and Mail.td's SHA-256 proof (`GET /api/challenge` ->
`POST /api/accounts`). Standard library only."""

import base64
import hashlib
import json

from .calls import http

DEFAULT_SALT = "0b980734412c292d6549110276b604ab1dea4883bd460d77d1b984adf8bca083"


def leading_zero_bits(digest):
    """How many zero bits `digest` (bytes) starts with."""
    bits = 0
    for byte in digest:
        if byte == 0:
            bits += 8
            continue
        bits += 8 - byte.bit_length()
        break
    return bits


def solve(item):
    """item = (bearer, jti, salt, difficulty, params) -> (bearer, powHex, nonce): the agent challenge's scrypt proof,
    with the challenge's scrypt `params` (N, r, p, dkLen; the defaults when absent). A plain function of one tuple,
    so that a multiprocessing pool can map it."""
    bearer, jti, salt, difficulty, params = item
    nonce = 0
    while True:
        digest = hashlib.scrypt(f"{jti}:{nonce}".encode(), salt=salt.encode(),
                                n=params.get("N", 16384), r=params.get("r", 8), p=params.get("p", 1),
                                dklen=params.get("dkLen", 64), maxmem=128 * 1024 * 1024)
        if leading_zero_bits(digest) >= difficulty:
            return bearer, digest.hex(), str(nonce)
        nonce += 1


def mailbox_nonce(challenge):
    """The nonce that solves a Mail.td challenge ({"salt", "difficulty"}): SHA-256 of salt + nonce with that many
    leading zero bits."""
    salt, difficulty = challenge["salt"], int(challenge.get("difficulty", 0))
    nonce = 0
    while leading_zero_bits(hashlib.sha256(f"{salt}{nonce}".encode()).digest()) < difficulty:
        nonce += 1
    return str(nonce)


def agent_signup(base, username):
    """(status, body, session JWT) of an agent signup: challenge, scrypt proof of work, POST /api/v1/session."""
    return agent_session(base, {"username": username})


def agent_login(base, api_key):
    """(status, body, session JWT) of an agent login by API key, with its proof of work."""
    return agent_session(base, {"apiKey": api_key})


def agent_session(base, fields):
    """(status, body, session JWT) of POST /api/v1/session with `fields` (a username or an API key) and the proof of
    work of a fresh challenge."""
    status, head, body = http(base, "POST", "/api/v1/challenge")
    token = head.get("Authorization", "").split(" ", 1)[1]
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    _, pow_hex, nonce = solve((token, claims["jti"], body["salt"], claims["difficulty"], {}))
    status, head, body = http(base, "POST", "/api/v1/session", {"powHex": pow_hex, "nonce": nonce, **fields},
                              bearer=token)
    return status, body, head.get("Authorization", " ").split(" ", 1)[1]
