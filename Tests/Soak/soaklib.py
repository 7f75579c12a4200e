"""Shared by the checks in Tests/Soak (not itself a check: scripts/soak runs only executables).

Starts the release `postern serve` (POSTERN_BIN) on a free loopback port with its own data directory,
and speaks the three surfaces as a client would. Standard library only; the proof-of-work solvers are
scripts/bench-lib.py's.
"""
import http.client
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.environ.get("POSTERN_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("POSTERN_BIN") or os.path.join(REPO, ".build", "release", "postern")

_spec = importlib.util.spec_from_file_location("bench_lib", os.path.join(REPO, "scripts", "bench-lib.py"))
benchlib = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(benchlib)


class Server:
    """A running `postern serve` with its own data directory; `env` overrides config/postern.env."""

    def __init__(self, env=None, data_dir=None, preload=None):
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="postern-soak-")
        self.owns_dir = data_dir is None
        self.env = dict(os.environ)
        self.env.update({
            "POSTERN_CONFIG": os.path.join(REPO, "config", "postern.env"),
            "POSTERN_PORT": "0", "POSTERN_DATA_DIR": self.data_dir,
            "POSTERN_MIGRATIONS_DIR": os.path.join(REPO, "migrations"),
            "POSTERN_LOG_LEVEL": "notice", "JWT_ISSUER": "http://postern.soak",
        })
        self.env.update(env or {})
        if preload:
            self.env["LD_PRELOAD"] = preload
        self.proc = subprocess.Popen([BIN, "serve"], env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=REPO, text=True)
        line = self.proc.stdout.readline()
        if "listening on http://" not in line:
            self.proc.kill()
            raise RuntimeError(f"postern did not start: {line!r}")
        self.port = int(line.rsplit(":", 1)[1])
        self.base = f"http://127.0.0.1:{self.port}"

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def cli(self, *args):
        """Runs `postern ARGS` against this server's configuration and data; returns its stdout."""
        return subprocess.run([BIN, *args], env=self.env, cwd=REPO, check=True, capture_output=True,
                              text=True).stdout

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.owns_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def request(conn, method, path, body=None, headers=None):
    """One request on a keep-alive connection; returns (status, headers dict, body bytes)."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else (body or b"")
    all_headers = {"Content-Length": str(len(data))}
    if isinstance(body, (dict, list)):
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    conn.request(method, path, body=data, headers=all_headers)
    resp = conn.getresponse()
    raw = resp.read()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, raw


def agent_proof(conn):
    """A fresh agent challenge and its solved scrypt proof: (bearer, powHex, nonce)."""
    return benchlib.solve(benchlib.fetch_challenge(conn))


def mailbox_proof(conn):
    """A fresh mailbox challenge and its solved SHA-256 proof: the `pow` object of POST /api/accounts."""
    status, _, raw = request(conn, "GET", "/api/challenge")
    if status != 200:
        raise RuntimeError(f"GET /api/challenge: HTTP {status}")
    challenge = json.loads(raw)
    import hashlib
    nonce = 0
    while benchlib.leading_zero_bits(hashlib.sha256(f"{challenge['salt']}{nonce}".encode()).digest()) \
            < int(challenge.get("difficulty", 0)):
        nonce += 1
    return {"id": challenge["id"], "nonce": str(nonce)}


def median_ms(samples):
    return statistics.median(samples) * 1000


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)
