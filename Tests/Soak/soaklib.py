"""Shared helpers of the checks in Tests/Soak (not a check itself: not executable, so scripts/soak
skips it). Standard library only; the proof-of-work solvers come from scripts/bench-lib.py.

A check starts `postern serve` as an operator would (the release binary in POSTERN_BIN, the shipped
config file, port 0, its own data directory), drives it over HTTP and inspects its SQLite file.
"""
import hashlib
import http.client
import importlib.util
import json
import os
import re
import secrets
import signal
import sqlite3
import subprocess
import sys
import time

REPO = os.environ.get("POSTERN_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("POSTERN_BIN") or os.path.join(REPO, ".build", "release", "postern")

_spec = importlib.util.spec_from_file_location("bench_lib", os.path.join(REPO, "scripts", "bench-lib.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

# Fast rounds: no leading-zero bits to find (one scrypt or SHA-256 per proof), no rate limits.
FAST_SIGNUPS = {
    "POSTERN_AGENT_POW_DIFFICULTY": "0",
    "POSTERN_AGENT_POW_DYNAMIC": "off",
    "POSTERN_MAILBOX_POW_DIFFICULTY": "0",
    "POSTERN_RATE_LIMITS": "off",
}
MAILBOX_DOMAIN = "mail.localhost"


class CheckFailed(Exception):
    """A property the check claims does not hold."""


def fail(message):
    raise CheckFailed(message)


# SOAK_KEEP_GOING=1: a failed expectation is recorded and the check goes on, so that one run against a
# broken build shows every property it breaks; the check still fails at the end.
KEEP_GOING = os.environ.get("SOAK_KEEP_GOING") == "1"
_failures = []


def expect(condition, message):
    if not condition:
        if not KEEP_GOING:
            fail(message)
        print(f"FAILED: {message}", file=sys.stderr, flush=True)
        _failures.append(message)


def log(name, message):
    print(f"{name}: {message}", flush=True)


def run_check(name, body):
    """Runs `body()`, prints PASS/FAIL with the time taken, and exits 0 or 1."""
    start = time.monotonic()
    try:
        body()
        if _failures:
            fail(f"{len(_failures)} expectations failed: " + "; ".join(_failures))
    except CheckFailed as e:
        print(f"{name}: FAIL after {time.monotonic() - start:.1f} s: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
    print(f"{name}: PASS in {time.monotonic() - start:.1f} s", flush=True)


class Server:
    """One `postern serve` process; `start()` waits for its port line."""

    def __init__(self, data_dir, env=None, log_path=None, preexec=None):
        self.data_dir = data_dir
        self.env = dict(env or {})
        self.log_path = log_path or os.path.join(data_dir + ".log")
        self.preexec = preexec
        self.process = None
        self.port = None

    @property
    def pid(self):
        return self.process.pid

    @property
    def database(self):
        return os.path.join(self.data_dir, "postern.sqlite3")

    def start(self, timeout=30):
        os.makedirs(self.data_dir, exist_ok=True)
        env = dict(os.environ)
        env.update({
            "POSTERN_MIGRATIONS_DIR": os.path.join(REPO, "migrations"),
            "POSTERN_LOG_LEVEL": "notice",
        })
        env.update(self.env)
        log_file = open(self.log_path, "ab")
        offset = log_file.tell()
        self.process = subprocess.Popen(
            [BIN, "serve", "--config", os.path.join(REPO, "config", "postern.env"), "--port", "0",
             "--data-dir", self.data_dir],
            env=env, stdout=log_file, stderr=subprocess.STDOUT, preexec_fn=self.preexec)
        log_file.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                text = f.read().decode(errors="replace")
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", text)
            if found:
                self.port = int(found.group(1))
                return self
            if self.process.poll() is not None:
                fail(f"postern exited with {self.process.returncode} before listening: {text[-2000:]}")
            time.sleep(0.02)
        self.kill()
        fail(f"postern printed no port within {timeout} s")

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill(self, sig=signal.SIGKILL):
        if self.alive():
            os.kill(self.process.pid, sig)
        if self.process is not None:
            self.process.wait(timeout=30)

    def stop(self):
        """SIGTERM and wait; fails the check unless it exits 0."""
        if not self.alive():
            fail(f"postern died (exit {self.process.returncode}); log tail: {self.log_tail()}")
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=30)
        expect(code == 0, f"postern exited {code} on SIGTERM; log tail: {self.log_tail()}")

    def log_tail(self, size=2000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")[-size:]
        except OSError:
            return ""

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, timeout=30):
        """One request on a fresh connection: (status, headers dict lower-cased, body bytes)."""
        conn = self.connection(timeout)
        try:
            return send(conn, method, path, body, headers)
        finally:
            conn.close()

    def cli(self, *args):
        """Runs `postern ARGS --config ... --data-dir ...` on this server's data; returns its stdout."""
        env = dict(os.environ, POSTERN_MIGRATIONS_DIR=os.path.join(REPO, "migrations"), **self.env)
        return subprocess.run(
            [BIN, *args, "--config", os.path.join(REPO, "config", "postern.env"), "--data-dir", self.data_dir],
            env=env, check=True, capture_output=True, text=True).stdout

    def cpu_ticks(self):
        """utime + stime of the process in clock ticks, from /proc/PID/stat."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])


def send(conn, method, path, body=None, headers=None):
    """One request on `conn` (kept alive); a dict or list body goes as JSON.
    Returns (status, headers dict lower-cased, body bytes)."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else (body or b"")
    all_headers = {"Content-Length": str(len(data))}
    if isinstance(body, (dict, list)):
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    conn.request(method, path, body=data, headers=all_headers)
    resp = conn.getresponse()
    raw = resp.read()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, raw


# --- Agent surface: challenge -> scrypt proof -> session ---

def agent_solved_challenge(conn):
    """A challenge and its proof, not yet used: (bearer, powHex, nonce, jti)."""
    bearer, jti, salt, difficulty, params = bench.fetch_challenge(conn)
    _, pow_hex, nonce = bench.solve((bearer, jti, salt, difficulty, params))
    return bearer, pow_hex, nonce, jti


def agent_post_session(conn, solved, body_fields):
    bearer, pow_hex, nonce, _ = solved
    payload = json.dumps(dict(body_fields, powHex=pow_hex, nonce=nonce)).encode()
    conn.request("POST", "/api/v1/session", body=payload,
                 headers={"Authorization": "Bearer " + bearer, "Content-Type": "application/json"})
    resp = conn.getresponse()
    return resp.status, resp.getheader("Authorization") or "", resp.read()


def agent_username():
    return "f" + secrets.token_hex(7)


# --- Mailbox surface: challenge -> SHA-256 proof -> account ---

def mailbox_solved_challenge(conn):
    """GET /api/challenge and solve it: {"id", "nonce"} for the account body's `pow`."""
    conn.request("GET", "/api/challenge")
    resp = conn.getresponse()
    raw = resp.read()
    if resp.status != 200:
        raise RuntimeError(f"GET /api/challenge: HTTP {resp.status}: {raw[:200]!r}")
    challenge = json.loads(raw)
    salt, difficulty = challenge["salt"], int(challenge.get("difficulty", 0))
    nonce = 0
    while bench.leading_zero_bits(hashlib.sha256(f"{salt}{nonce}".encode()).digest()) < difficulty:
        nonce += 1
    return {"id": challenge["id"], "nonce": str(nonce)}


def mailbox_create(conn, address, password, proof):
    payload = json.dumps({"address": address, "password": password, "pow": proof}).encode()
    conn.request("POST", "/api/accounts", body=payload, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    return resp.status, resp.read()


def mailbox_token(conn, address, password):
    payload = json.dumps({"address": address, "password": password}).encode()
    conn.request("POST", "/api/token", body=payload, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    return resp.status, resp.read()


def mailbox_address():
    return f"f{secrets.token_hex(7)}@{MAILBOX_DOMAIN}"


# --- The database file ---

def integrity(path):
    """PRAGMA integrity_check of the SQLite file (another process may have it open)."""
    db = sqlite3.connect(path, timeout=10)
    try:
        rows = db.execute("PRAGMA integrity_check").fetchall()
    finally:
        db.close()
    return ",".join(str(r[0]) for r in rows)


def query(path, sql, params=()):
    db = sqlite3.connect(path, timeout=10)
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()
