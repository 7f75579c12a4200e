"""Mail.td's people over plain HTTP JSON: accounts made the v1 way (a password) and the v2 way (an `auth_key`
derived on the client with Argon2id, here through the system libargon2 by ctypes), their tokens, a Pro user's login
and API tokens. Standard library only; the server must not require the mailbox proof of work (the test profile).

    domain = domains(base)[0]
    account = create_account(base, "alice@" + domain, password="secret-1")          # v1
    other = create_account(base, "bob@" + domain, key=auth_key("bob@" + domain, "secret-2"))   # v2
    pro = pro_login(base, "pro@example.com", "pro-password")
"""

import ctypes
import ctypes.util
import hashlib

from .calls import http


def domains(base):
    """The domains a free account may be made on."""
    status, _, body = http(base, "GET", "/api/domains")
    if status != 200:
        raise AssertionError(f"GET /api/domains: {status} {body}")
    return [d["domain"] if isinstance(d, dict) else d for d in (body.get("domains", body) if isinstance(body, dict)
                                                               else body)]


def auth_key(address, password):
    """Mail.td v2's auth_key: hex(Argon2id(password, salt = SHA-256(lower(trim(address))), t=3, m=16384 KiB, p=1,
    32 bytes))."""
    library = ctypes.CDLL(ctypes.util.find_library("argon2") or "libargon2.so.1")
    # The lengths are size_t: without argtypes ctypes passes C ints, whose upper register half is left to chance
    # (argon2 then read a salt length in the billions now and then: ARGON2_SALT_TOO_LONG, -7).
    library.argon2id_hash_raw.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p,
                                          ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                          ctypes.c_size_t]
    library.argon2id_hash_raw.restype = ctypes.c_int
    salt = hashlib.sha256(address.strip().lower().encode()).digest()
    secret, out = password.encode(), ctypes.create_string_buffer(32)
    code = library.argon2id_hash_raw(3, 16384, 1, secret, len(secret), salt, len(salt), out, 32)
    if code != 0:
        raise AssertionError(f"argon2id_hash_raw: {code}")
    return out.raw.hex()


def create_account(base, address, password=None, key=None, bearer=None):
    """POST /api/accounts with a v1 `password` or a v2 `key` (auth_key), optionally as a Pro user (`bearer`); the
    answer ({"id", "address", "token"})."""
    fields = {"address": address} | ({"password": password} if key is None else {"auth_key": key})
    status, _, body = http(base, "POST", "/api/accounts", fields, bearer=bearer)
    if status != 201:
        raise AssertionError(f"POST /api/accounts {address}: {status} {body}")
    return body


def pro_login(base, email, password):
    """A Pro user's JWT from POST /api/user/login."""
    status, _, body = http(base, "POST", "/api/user/login", {"email": email, "password": password})
    if status != 200:
        raise AssertionError(f"POST /api/user/login {email}: {status} {body}")
    return body["token"]


def pro_token(base, bearer, name):
    """A named `tm_pro_` API token of the Pro user `bearer` signs in as ({"id", "name", "token"})."""
    status, _, body = http(base, "POST", "/api/user/tokens", {"name": name}, bearer=bearer)
    if status != 201:
        raise AssertionError(f"POST /api/user/tokens: {status} {body}")
    return body


def messages(base, account, token):
    """The first page of an account's messages (Mail.td's list, newest first)."""
    status, _, body = http(base, "GET", f"/api/accounts/{account}/messages", bearer=token)
    if status != 200:
        raise AssertionError(f"GET messages of {account}: {status} {body}")
    return body if isinstance(body, list) else body.get("messages", body.get("hydra:member", []))
