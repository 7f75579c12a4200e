"""A real `postern serve` for the tests: built binary, free loopback ports, a temporary data directory; the
`listening on` line for the callers that start it on `--port 0` with a log file of their own."""

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

from .calls import http

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:(\d+))")


def listening_url(log):
    """The base URL a `postern serve --port 0` printed in `log` (its text so far), or None while it has not."""
    found = LISTENING.search(log)
    return found.group(1) if found else None


def wait_listening(process, log, timeout=None, step=0.05):
    """Polls `log()` (what `process`, a `postern serve --port 0`, has printed so far) every `step` s until it holds
    the `listening on` line; returns its base URL, or None once the process has exited or `timeout` s (None: no
    bound) have passed without it."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        url = listening_url(log())
        if url or process.poll() is not None or (deadline is not None and time.monotonic() >= deadline):
            return url
        time.sleep(step)


def rss_kib(pid):
    """The resident set size of process `pid` in KiB (VmRSS), 0 when /proc does not say."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """utime + stime of the whole process `pid`, in seconds, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pip_target(directory, requirement, module, no_deps=False):
    """Installs `requirement` from PyPI into .build/client-sdks/`directory` unless `module` is there already; returns
    the directory (for sys.path or PYTHONPATH). `no_deps`: as install_packages'."""
    return _pip_install(directory, [requirement], [module], no_deps)


def install_packages(directory, requirements, modules, no_deps=False):
    """Installs `requirements` (pip specifiers) into .build/client-sdks/`directory` unless every module of `modules`
    is already there, and puts that directory first on sys.path (once). `no_deps`: without their dependencies (a
    package whose dependencies the system already has, such as selenium, would otherwise shadow them)."""
    target = _pip_install(directory, requirements, modules, no_deps)
    if target not in sys.path:
        sys.path.insert(0, target)


def _pip_install(directory, requirements, modules, no_deps=False):
    # Under a lock file beside the target: `make test` runs its Python stages at once, and on a fresh clone two of
    # them (the cluster and outbound tests both want dnslib) would otherwise install into one directory together.
    target = os.path.join(ROOT, ".build", "client-sdks", directory)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not all(os.path.exists(os.path.join(target, module)) for module in modules):
            # --no-compile: a module is compiled when first imported, not every module of every package at install.
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-compile",
                            "--disable-pip-version-check", "--target", target, *(["--no-deps"] if no_deps else []),
                            *requirements], check=True)
    return target


class Server(str):
    """The base URL of a running server (a str), with its SMTP and sandbox ports, data directory, process, backend
    (`sqlite` or `postgres`) and `backend_env` (the settings that reach its database: what `postern` commands against
    it need besides `--data-dir`)."""
    smtp_port = None
    sandbox_port = None
    data = None
    process = None
    backend = "sqlite"
    backend_env = {}


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
def postern(env=None, pro_users=(), owners=(), data=None, backend="sqlite"):
    """Yields the base URL (a ``Server``) of a server started with `--profile test` and `env`, after creating each
    (email, password) of `pro_users` and of `owners`; stops it and removes its data directory afterwards, unless the
    caller gave `data` (a directory to reuse: a restart keeps everything). The profile's defaults hold unless `env`
    says otherwise, except three kept from before it: the mailbox proof of work is required, the sandbox is off, and
    when a test turns the sandbox on it checks SPF, DKIM and DMARC (through the test's own DNS server).
    `backend="postgres"`: its database is a fresh one on the script's one PostgreSQL server (testkit.postgres),
    dropped when it stops: a copy of ``started_database`` with its `POSTERN_KEY_SECRET`, or, when `env` sets
    `POSTERN_KEY_SECRET`, an empty one; else SQLite in a data directory that starts as a copy of ``started_data``
    (unless the caller gave a `data` that is not empty, or `env` sets `POSTERN_KEY_SECRET`)."""
    if backend == "postgres":
        from .postgres import fresh_database
        own_secret = "POSTERN_KEY_SECRET" in (env or {})
        binary = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
        template, secret = (None, secrets.token_urlsafe(24)) if own_secret else started_database(binary)
        with fresh_database(template) as url:
            backend_env = {"POSTERN_DATABASE_URL": url, "POSTERN_KEY_SECRET": secret}
            with _postern(env, pro_users, owners, data, backend, backend_env) as base:
                yield base
    elif backend == "sqlite":
        with _postern(env, pro_users, owners, data, backend, {}) as base:
            yield base
    else:
        raise ValueError(f"backend {backend!r}: sqlite or postgres")


def wait_ready(base, process):
    """Waits up to 20 s for the server `process` serving `base` to answer /readyz 200; exits the test otherwise."""
    for _ in range(400):
        try:
            if http(base, "GET", "/readyz")[0] == 200:
                return
        except OSError:
            pass
        if process.poll() is not None:
            raise SystemExit("postern exited during start")
        time.sleep(0.05)
    raise SystemExit("postern did not become ready")


def started_data(binary):
    """A data directory as `binary`'s first `serve --profile test` leaves it (the migrated SQLite database, the
    signing keys, the agent domain's DKIM keys, the SMTP TLS pair), made once per build of the binary under
    .build/test-templates and copied for each new server instead of making it again: its two RSA-2048 keys and some
    fifty migrations cost the debug build a second of CPU at every first start, and the client tests start dozens.
    The servers so started share those keys, as the Swift suites' servers share theirs (KeyedTemplate)."""
    stat = os.stat(binary)
    template = os.path.join(ROOT, ".build", "test-templates", f"data-{stat.st_size}-{stat.st_mtime_ns}")
    os.makedirs(os.path.dirname(template), exist_ok=True)
    with open(template + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isdir(template):
            scratch = tempfile.mkdtemp(prefix="data-", dir=os.path.dirname(template))
            first_start(binary, scratch, {})
            os.rename(scratch, template)
    return template


def first_start(binary, data, settings):
    """Starts `binary` (`serve --profile test`) on the data directory `data` with `settings` and none of this
    process's POSTERN_ and JWT_ ones, waits until it is ready and stops it: what a template needs made once."""
    settings = {**{k: v for k, v in os.environ.items() if not k.startswith(("POSTERN_", "JWT_"))}, **settings}
    process, bound = serve(binary, ["--data-dir", data], settings)
    try:
        wait_ready(bound["http"], process)
    finally:
        process.terminate()
        process.wait(timeout=30)


def started_database(binary):
    """(name, key secret) of a database on this process's PostgreSQL server (testkit.postgres) as `binary`'s first
    `serve --profile test` on it leaves it: migrated, with the signing keys and the agent domain's DKIM keys sealed
    under the secret. Made once per build of the binary and server, and copied (`CREATE DATABASE … TEMPLATE`) for each
    new PostgreSQL server instead of making it again, as ``started_data`` is for SQLite: a first start on an empty
    database cost the debug build 0.5 CPU-s of its own (two RSA-2048 keys, the sealing key's scrypt) and PostgreSQL
    some fifty migrations' work. The secret, made once per .build, is in .build/test-templates; the servers so
    started share those keys, as ``started_data``'s do."""
    from .postgres import database_exists, fresh_database, rename_database
    stat = os.stat(binary)
    name = f"started_{stat.st_size}_{stat.st_mtime_ns}"
    directory = os.path.join(ROOT, ".build", "test-templates")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "postgres.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        secret_file = os.path.join(directory, "postgres-key-secret")
        if not os.path.exists(secret_file):
            with open(secret_file + ".new", "w") as out:
                out.write(secrets.token_urlsafe(24))
            os.rename(secret_file + ".new", secret_file)
        with open(secret_file) as source:
            secret = source.read().strip()
        if not database_exists(name):
            # Started under a name of its own and renamed once its server has stopped, so that no copy is ever taken
            # of a database still being migrated (after a failure, fresh_database drops the scratch one).
            with fresh_database() as url:
                scratch = tempfile.mkdtemp(prefix="data-", dir=directory)
                try:
                    first_start(binary, scratch, {"POSTERN_DATABASE_URL": url, "POSTERN_KEY_SECRET": secret})
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
                rename_database(url.rsplit("/", 1)[1], name)
    return name, secret


@contextlib.contextmanager
def _postern(env, pro_users, owners, data, backend, backend_env):
    binary = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
    owned = data is None
    data = data or tempfile.mkdtemp(prefix="postern-client-test-")
    settings = dict(os.environ, POSTERN_MAILBOX_POW_REQUIRED="on", POSTERN_SANDBOX_SMTP_PORT="off",
                    POSTERN_SANDBOX_MAIL_AUTH="on")
    settings.update(backend_env)
    settings.update(env or {})
    # A new SQLite server (in a data directory of its own, or an empty one the caller gave: the first start of a test
    # that restarts it there) starts from the started template, unless its keys are sealed with a secret of its own.
    if (owned or not os.listdir(data)) and backend == "sqlite" and "POSTERN_KEY_SECRET" not in settings:
        shutil.copytree(started_data(binary), data, dirs_exist_ok=True)
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
    base.backend = backend
    base.backend_env = backend_env
    base.smtp_port = int(bound["smtp"].rsplit(":", 1)[1]) if bound["smtp"] else None
    base.sandbox_port = int(bound["sandbox"].rsplit(":", 1)[1]) if bound.get("sandbox") else None
    base.imap_port = int(bound["imap"].rsplit(":", 1)[1]) if bound.get("imap") else None
    base.imaps_port = int(bound["imaps"].rsplit(":", 1)[1]) if bound.get("imaps") else None
    base.pop3_port = int(bound["pop3"].rsplit(":", 1)[1]) if bound.get("pop3") else None
    base.pop3s_port = int(bound["pop3s"].rsplit(":", 1)[1]) if bound.get("pop3s") else None
    base.submission_port = int(bound["submission"].rsplit(":", 1)[1]) if bound.get("submission") else None
    base.submissions_port = int(bound["submissions"].rsplit(":", 1)[1]) if bound.get("submissions") else None
    try:
        wait_ready(base, server)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)
        if owned:
            shutil.rmtree(data, ignore_errors=True)
