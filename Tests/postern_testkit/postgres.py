"""PostgreSQL for the end-to-end tests whose cases run on both backends (issue 54): one throwaway server of
scripts/pg-temp per test script, started on first need and destroyed when the script ends, or the one whose URL
`POSTERN_TEST_PG_URL` gives (scripts/client-tests starts one for all its tests), and a fresh database on it for each
`postern(backend="postgres")` server (testkit.server), dropped when that server stops.

- `BACKENDS`: the backends a both-backend test runs its cases on, in order: `sqlite,postgres`, or what
  `POSTERN_TEST_BACKENDS` says (a comma-separated subset, to run one while working on a test)
- `fresh_database(template=None)`: a context manager yielding the URL (`POSTERN_DATABASE_URL`) of a new database,
  empty or a copy of the database `template`
- `database_exists(name)`, `rename_database(old, new)`: on this process's server
- `psql(sql, database_url)`: runs `sql` as the server's superuser; its rows
"""

import atexit
import contextlib
import itertools
import os
import re
import shutil
import subprocess
import tempfile
import threading

from .server import ROOT

BACKENDS = tuple(b for b in os.environ.get("POSTERN_TEST_BACKENDS", "sqlite,postgres").split(",") if b)
if not BACKENDS or set(BACKENDS) - {"sqlite", "postgres"}:
    raise SystemExit(f"POSTERN_TEST_BACKENDS: sqlite, postgres or both, not {os.environ['POSTERN_TEST_BACKENDS']!r}")

PG_TEMP = os.path.join(ROOT, "scripts", "pg-temp")
_lock = threading.Lock()
_server = {}  # "dir" and "url" of this process's pg-temp server, once started
_names = itertools.count(1)


def _server_url():
    with _lock:
        if "url" not in _server and os.environ.get("POSTERN_TEST_PG_URL"):
            _server["url"] = os.environ["POSTERN_TEST_PG_URL"]
        if "url" not in _server:
            directory = tempfile.mkdtemp(prefix="postern-e2e-pg-")
            os.chmod(directory, 0o711)  # as root, PostgreSQL runs as `postgres` and must reach its directory inside
            atexit.register(_destroy, directory)
            started = subprocess.run([PG_TEMP, "start", directory], check=True, text=True, stdout=subprocess.PIPE)
            _server.update(dir=directory, url=started.stdout.strip().splitlines()[-1])
        return _server["url"]


def _destroy(directory):
    subprocess.run([PG_TEMP, "destroy", directory], capture_output=True)
    shutil.rmtree(directory, ignore_errors=True)


def psql_binary():
    found = shutil.which("psql")
    if found:
        return found
    root = "/usr/lib/postgresql"
    return sorted(os.path.join(root, version, "bin", "psql") for version in os.listdir(root))[-1]


def psql(sql, database_url):
    """Runs `sql` on `database_url`; its rows (lists of column texts)."""
    result = subprocess.run([psql_binary(), "-d", database_url, "-qtAX", "-v", "ON_ERROR_STOP=1", "-c", sql],
                            capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise AssertionError(f"psql {sql!r}: {result.stderr.strip()}")
    return [line.split("|") for line in result.stdout.splitlines() if line]


@contextlib.contextmanager
def fresh_database(template=None):
    """Yields the URL of a new database on this process's server (started now if it is not yet): empty, or a copy of
    the database `template` (its files copied, `STRATEGY FILE_COPY`, as Tests/Support/MigratedTemplate.swift does:
    not block by block through the write-ahead log); drops it afterwards."""
    url = _server_url()
    name = f"postern_{os.getpid()}_{next(_names)}"
    psql(f"CREATE DATABASE {name}" + (f" TEMPLATE {template} STRATEGY FILE_COPY" if template else ""), url)
    try:
        yield re.sub(r"/\w+$", "/" + name, url)
    finally:
        psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", url)


def database_exists(name):
    """Whether this process's server holds a database `name`."""
    return bool(psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'", _server_url()))


def rename_database(old, new):
    """Renames the database `old` (no session may be connected to it) to `new` on this process's server."""
    psql(f"ALTER DATABASE {old} RENAME TO {new}", _server_url())
