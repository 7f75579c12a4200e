"""A real `postern serve` for the client tests: built binary, free loopback ports, a temporary data directory."""

import base64
import contextlib
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def pip_target(directory, requirement, module):
    """Installs `requirement` from PyPI into .build/client-sdks/`directory` unless `module` is there already; returns
    the directory (for sys.path or PYTHONPATH)."""
    target = os.path.join(ROOT, ".build", "client-sdks", directory)
    if not os.path.exists(os.path.join(target, module)):
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target",
                        target, requirement], check=True)
    return target


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(base, method, path, body=None, headers=None, bearer=None):
    """(status, response headers, parsed JSON or text) of one request; errors are answers too."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    request = urllib.request.Request(base + path if path.startswith("/") else path, method=method, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    if bearer:
        request.add_header("Authorization", "Bearer " + bearer)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, head, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, head, raw = error.code, error.headers, error.read()
    try:
        return status, head, json.loads(raw) if raw else None
    except ValueError:
        return status, head, raw.decode("utf-8", "replace")


def install_packages(directory, requirements, modules):
    """Installs `requirements` (pip specifiers) into .build/client-sdks/`directory` unless every module of `modules`
    is already there, and puts that directory first on sys.path."""
    target = os.path.join(ROOT, ".build", "client-sdks", directory)
    if not all(os.path.exists(os.path.join(target, module)) for module in modules):
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target",
                        target, *requirements], check=True)
    sys.path.insert(0, target)


def agent_signup(base, username):
    """(status, body, session JWT) of an agent signup: challenge, scrypt proof of work, POST /api/v1/session."""
    status, head, body = http(base, "POST", "/api/v1/challenge")
    token = head.get("Authorization", "").split(" ", 1)[1]
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    nonce = 0
    while True:
        digest = hashlib.scrypt(f"{claims['jti']}:{nonce}".encode(), salt=body["salt"].encode(), n=16384, r=8, p=1,
                                dklen=64)
        if int.from_bytes(digest, "big") >> (512 - claims["difficulty"]) == 0:
            break
        nonce += 1
    status, head, body = http(base, "POST", "/api/v1/session", {"powHex": digest.hex(), "nonce": str(nonce),
                                                                "username": username}, bearer=token)
    return status, body, head.get("Authorization", " ").split(" ", 1)[1]


class Server(str):
    """The base URL of a running server (a str), with its SMTP port, data directory and process."""
    smtp_port = None
    data = None
    process = None


def serve(binary, arguments, env):
    """Starts `postern serve --profile test` with `arguments` and `env`, reads the JSON line of what it bound (the
    fixture docs/testing.md shows) and returns (process, bound): no port is chosen here, no prose is parsed."""
    process = subprocess.Popen([binary, "serve", "--profile", "test", *arguments], env=env, stdout=subprocess.PIPE,
                               text=True)
    for line in process.stdout:
        if line.startswith("{"):
            return process, json.loads(line)
    process.wait(timeout=30)
    raise SystemExit(f"postern exited during start ({process.returncode})")


@contextlib.contextmanager
def postern(env=None, pro_users=(), owners=(), data=None):
    """Yields the base URL (a ``Server``) of a server started with `--profile test` and `env`, after creating each
    (email, password) of `pro_users` and of `owners`; stops it and removes its data directory afterwards, unless the
    caller gave `data` (a directory to reuse: a restart keeps everything). The profile's defaults hold unless `env`
    says otherwise, except three kept from before it: the mailbox proof of work is required, the sandbox is off, and
    when a test turns the sandbox on it checks SPF, DKIM and DMARC (through the test's own DNS server)."""
    binary = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
    owned = data is None
    data = data or tempfile.mkdtemp(prefix="postern-client-test-")
    settings = dict(os.environ, POSTERN_MAILBOX_POW_REQUIRED="on", POSTERN_SANDBOX_SMTP_PORT="off",
                    POSTERN_SANDBOX_MAIL_AUTH="on")
    settings.update(env or {})
    for email, password in pro_users:
        subprocess.run([binary, "pro", "create", "--data-dir", data, "--email", email, "--password", password],
                       env=settings, check=True, capture_output=True)
    for email, password in owners:
        subprocess.run([binary, "owner", "create", "--data-dir", data, "--email", email, "--password", password],
                       env=settings, check=True, capture_output=True)
    server, bound = serve(binary, ["--data-dir", data], settings)
    base = Server(bound["http"])
    base.data = data
    base.process = server
    base.smtp_port = int(bound["smtp"].rsplit(":", 1)[1]) if bound["smtp"] else None
    try:
        for _ in range(400):
            try:
                if http(base, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            if server.poll() is not None:
                raise SystemExit("postern exited during start")
            time.sleep(0.05)
        else:
            raise SystemExit("postern did not become ready")
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)
        if owned:
            shutil.rmtree(data, ignore_errors=True)


class Checks:
    """Prints each check; `finish` exits non-zero when any failed."""

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what):
        print(("ok   " if condition else "FAIL ") + what, flush=True)
        if not condition:
            self.failures.append(what)
        return condition

    def finish(self, name):
        if self.failures:
            print(f"{name}: {len(self.failures)} check(s) failed", flush=True)
            raise SystemExit(1)
        print(f"{name}: every check passed", flush=True)
