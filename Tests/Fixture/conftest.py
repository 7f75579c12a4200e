"""The pytest fixture docs/testing.md shows, as this project's own suite uses it: one `postern serve --profile test`
per xdist worker, its addresses read from the JSON line it prints. Set POSTERN_BIN to the binary (default: the
repository's debug build)."""

import json
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
POSTERN = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))


def start_postern(*arguments, env=None):
    """`postern serve --profile test` with `arguments`; returns (process, what it bound)."""
    process = subprocess.Popen([POSTERN, "serve", "--profile", "test", *arguments], stdout=subprocess.PIPE,
                               text=True, env=dict(os.environ, **(env or {})))
    for line in process.stdout:
        if line.startswith("{"):
            return process, json.loads(line)
    process.wait(timeout=30)
    raise RuntimeError(f"postern exited before it was listening ({process.returncode})")


def stop_postern(process):
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture(scope="session")
def postern():
    """One server per worker for the whole session: {"http", "smtp", "sandbox", "data_dir"}."""
    process, bound = start_postern()
    yield bound
    stop_postern(process)
