"""Shared helpers of the checks in Tests/Soak (not a check itself: not executable, so scripts/soak
skips it). Standard library only; the proof-of-work solvers, the `listening on` line and the process's resident
size come from Tests/postern_testkit, the library every Python test shares.

A check starts `postern serve` as an operator would (the release binary in POSTERN_BIN, the shipped
config file, port 0, its own data directory), drives it over HTTP, reads what the kernel says about the
process (/proc/PID) and inspects its SQLite file. It runs its body through `run_check`, which prints
PASS or FAIL and sets the exit status; `fail` (or a false `expect`) ends it. Server logs and other raw
data go to artifacts/soak/ (not committed), named after the check.
"""
import contextlib
import http.client
import json
import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

REPO = os.environ.get("POSTERN_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("POSTERN_BIN") or os.path.join(REPO, ".build", "release", "postern")
CONFIG = os.path.join(REPO, "config", "postern.env")
ARTIFACTS = os.path.join(REPO, "artifacts", "soak")
CHECK = os.path.splitext(os.path.basename(sys.argv[0]))[0]  # the running check: its file name

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
import postern_testkit as kit  # noqa: E402

# Fast rounds: no leading-zero bits to find (one scrypt or SHA-256 per proof), no rate limits.
FAST_SIGNUPS = {
    "POSTERN_AGENT_POW_DIFFICULTY": "0",
    "POSTERN_AGENT_POW_DYNAMIC": "off",
    "POSTERN_MAILBOX_POW_DIFFICULTY": "0",
    "POSTERN_RATE_LIMITS": "off",
}
MAILBOX_DOMAIN = "mail.localhost"


def artifact(name):
    """artifacts/soak/NAME (the directory is created)."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    return os.path.join(ARTIFACTS, name)


# --- Verdicts ---

class CheckFailed(Exception):
    """A property the check claims does not hold."""


def fail(message):
    raise CheckFailed(message)


def fail_if_any(problems):
    """For checks that judge a whole run at the end: fails listing every problem found."""
    if problems:
        fail(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems))


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


def log(message):
    print(f"{CHECK}: {message}", flush=True)


def run_check(body):
    """Runs `body()`, prints PASS/FAIL with the time taken (and where postern's log is), exits 0 or 1."""
    start = time.monotonic()
    try:
        body()
        if _failures:
            fail(f"{len(_failures)} expectations failed: " + "; ".join(_failures))
    except CheckFailed as e:
        where = "".join(f"; postern's log: {os.path.relpath(p)}" for p in sorted(_logs_started) if os.path.exists(p))
        print(f"{CHECK}: FAIL after {time.monotonic() - start:.1f} s{where}: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
    print(f"{CHECK}: PASS in {time.monotonic() - start:.1f} s", flush=True)


def percentile(values, fraction):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def wait_until(predicate, timeout, step=0.25):
    """Polls `predicate` every `step` s for up to `timeout` s; returns its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


# --- The server ---

_logs_started = set()  # log files this check has written: the first start truncates, restarts append


class Server:
    """One `postern serve` process on 127.0.0.1:<port 0>; `start()` waits for its port line.

    `data_dir` None gives a temporary data directory, removed when the process ends (`stop` or `kill`);
    a given one is kept, so a check can start a new server on it. stdout and stderr go to `log_path`
    (default artifacts/soak/<check>.log), appended to by later starts in the same run. `with` ends the
    process (SIGKILL if still running) when the block ends; `stop()` is the orderly end that is judged.
    """

    def __init__(self, data_dir=None, env=None, log_path=None, preexec=None):
        self.temporary = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix=f"postern-{CHECK}-")
        self.env = dict(env or {})
        self.log_path = log_path or artifact(f"{CHECK}.log")
        self.preexec = preexec
        self.process = None
        self.port = None

    @property
    def pid(self):
        return self.process.pid

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def database(self):
        return os.path.join(self.data_dir, "postern.sqlite3")

    def _environment(self):
        env = dict(os.environ, POSTERN_HOST="127.0.0.1", POSTERN_LOG_LEVEL="notice", POSTERN_SMTP_PORT="0",
                   POSTERN_SANDBOX_SMTP_PORT="0")
        env.update(self.env)
        return env

    def start(self, timeout=60):
        """Starts the process and waits for its port; on failure nothing is left running or behind."""
        try:
            return self._start(timeout)
        except BaseException:
            self.kill()
            raise

    def _start(self, timeout):
        if not os.access(BIN, os.X_OK):
            fail(f"no executable postern at {BIN} (scripts/soak builds it)")
        os.makedirs(self.data_dir, exist_ok=True)
        log_file = open(self.log_path, "ab" if self.log_path in _logs_started else "wb")
        _logs_started.add(self.log_path)
        offset = log_file.tell()
        self.process = subprocess.Popen(
            [BIN, "serve", "--config", CONFIG, "--port", "0", "--data-dir", self.data_dir],
            cwd=REPO, env=self._environment(), stdout=log_file, stderr=subprocess.STDOUT, preexec_fn=self.preexec)
        log_file.close()

        def output():
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        found = kit.wait_listening(self.process, output, timeout, step=0.02)
        if found is None and self.process.poll() is not None:
            fail(f"postern exited with {self.process.returncode} before listening: {output()[-2000:]}")
        if found is None:
            fail(f"postern printed no port within {timeout} s")
        self.port = kit.split_url(found)[1]
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill(self, sig=signal.SIGKILL):
        if self.alive():
            os.kill(self.process.pid, sig)
        if self.process is not None:
            self.process.wait(timeout=30)
        self._remove_temporary()

    def stop(self):
        """SIGTERM and wait; fails the check unless it exits 0."""
        if not self.alive():
            fail(f"postern died (exit {self.process.returncode}); log tail: {self.log_tail()}")
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=30)
        self._remove_temporary()
        expect(code == 0, f"postern exited {code} on SIGTERM; log tail: {self.log_tail()}")

    def _remove_temporary(self):
        if self.temporary:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def log_tail(self, size=2000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")[-size:]
        except OSError:
            return ""

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    @contextlib.contextmanager
    def connected(self, timeout=30):
        """`with server.connected() as conn:` one keep-alive connection, closed at the end."""
        conn = self.connection(timeout)
        try:
            yield conn
        finally:
            conn.close()

    def request(self, method, path, body=None, headers=None, timeout=30):
        """One request on a fresh connection: (status, headers dict lower-cased, body bytes)."""
        with self.connected(timeout) as conn:
            return send(conn, method, path, body, headers)

    def cli(self, *args):
        """Runs `postern ARGS --config ... --data-dir ...` on this server's data; returns its stdout."""
        return subprocess.run([BIN, *args, "--config", CONFIG, "--data-dir", self.data_dir], cwd=REPO,
                              env=self._environment(), check=True, capture_output=True, text=True).stdout

    # What the kernel says about the process.

    def rss_kib(self):
        return kit.rss_kib(self.pid)

    def cpu_seconds(self):
        """utime + stime of the whole process, in seconds."""
        return kit.cpu_seconds(self.pid)

    def sockets(self):
        """Socket descriptors the process holds (the listener, clients and outgoing fetches)."""
        count = 0
        fd_dir = f"/proc/{self.pid}/fd"
        for name in os.listdir(fd_dir):
            try:
                if os.readlink(os.path.join(fd_dir, name)).startswith("socket:"):
                    count += 1
            except OSError:
                pass
        return count


def send(conn, method, path, body=None, headers=None):
    """One request on `conn` (kept alive); a dict or list body goes as JSON, asking for JSON back.
    Returns (status, headers dict lower-cased, body bytes)."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else (body or b"")
    all_headers = {"Content-Length": str(len(data))}
    if isinstance(body, (dict, list)):
        all_headers.update({"Content-Type": "application/json", "Accept": "application/json"})
    all_headers.update(headers or {})
    conn.request(method, path, body=data, headers=all_headers)
    resp = conn.getresponse()
    raw = resp.read()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, raw


class Origin:
    """scripts/bench-lib.py `origin` serving `text` from a loopback port, as a remote-hash URL (`url`)."""

    def __init__(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        self.path = f.name
        self.process = subprocess.Popen([sys.executable, os.path.join(REPO, "scripts", "bench-lib.py"), "origin",
                                         self.path], stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening "):
            self.close()
            fail(f"the origin did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/hash.txt"

    def close(self):
        self.process.kill()
        self.process.wait()
        os.unlink(self.path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --- Agent surface: challenge -> scrypt proof -> session ---

def agent_proof(headers, raw):
    """Solves the challenge of a POST /api/v1/challenge answer: (bearer, powHex, nonce, jti)."""
    auth = headers.get("authorization", "")
    if not auth.startswith("Bearer "):
        raise RuntimeError("challenge: no Bearer token in the Authorization response header")
    body = json.loads(raw)
    _, pow_hex, nonce = kit.solve((auth[7:], body["challenge"], body.get("salt", kit.DEFAULT_SALT),
                                     int(body.get("difficulty", 0)), body.get("scrypt") or {}))
    return auth[7:], pow_hex, nonce, body["challenge"]


def agent_solved_challenge(conn):
    """A challenge and its proof, not yet used: (bearer, powHex, nonce, jti)."""
    status, headers, raw = send(conn, "POST", "/api/v1/challenge")
    if status != 200:
        raise RuntimeError(f"POST /api/v1/challenge: HTTP {status}: {raw[:200]!r}")
    return agent_proof(headers, raw)


def agent_post_session(conn, solved, body_fields):
    """POST /api/v1/session with a solved challenge: (status, headers, body)."""
    bearer, pow_hex, nonce, _ = solved
    return send(conn, "POST", "/api/v1/session", dict(body_fields, powHex=pow_hex, nonce=nonce),
                {"Authorization": "Bearer " + bearer})


def agent_username():
    return "f" + secrets.token_hex(7)


# --- Mailbox surface: challenge -> SHA-256 proof -> account ---

def mailbox_proof(raw):
    """Solves a GET /api/challenge answer: {"id", "nonce"} for the account body's `pow`."""
    challenge = json.loads(raw)
    return {"id": challenge["id"], "nonce": kit.mailbox_nonce(challenge)}


def mailbox_solved_challenge(conn):
    status, _, raw = send(conn, "GET", "/api/challenge")
    if status != 200:
        raise RuntimeError(f"GET /api/challenge: HTTP {status}: {raw[:200]!r}")
    return mailbox_proof(raw)


def mailbox_create(conn, address, password, proof):
    return send(conn, "POST", "/api/accounts", {"address": address, "password": password, "pow": proof})


def mailbox_token(conn, address, password):
    return send(conn, "POST", "/api/token", {"address": address, "password": password})


def mailbox_address():
    return f"f{secrets.token_hex(7)}@{MAILBOX_DOMAIN}"


# --- The database file ---

def integrity(path):
    """PRAGMA integrity_check of the SQLite file (another process may have it open)."""
    rows = query(path, "PRAGMA integrity_check")
    return ",".join(str(r[0]) for r in rows)


def query(path, sql, params=()):
    db = sqlite3.connect(path, timeout=10)
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()
