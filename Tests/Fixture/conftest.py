"""The pytest fixture docs/testing.md shows, as written (a test below holds the two to each other): one `postern
serve --profile test` per xdist worker, its addresses read from the JSON line it prints, and the operator's message
API as a queue. scripts/client-tests sets POSTERN_BIN to the repository's debug build."""

import json
import os
import subprocess
import urllib.parse
import urllib.request

import pytest

POSTERN = os.environ.get("POSTERN_BIN", "postern")
OPERATOR_TOKEN = "operator-token-for-tests-0123456789"


def start_postern(*arguments, env=None):
    process = subprocess.Popen([POSTERN, "serve", "--profile", "test", *arguments], stdout=subprocess.PIPE,
                               text=True, env=dict(os.environ, **(env or {})))
    for line in process.stdout:
        if line.startswith("{"):
            return process, json.loads(line)
    process.wait(timeout=30)
    raise RuntimeError(f"postern exited before it was listening ({process.returncode})")


@pytest.fixture(scope="session")
def postern():
    """One server per worker, keeping mail for any address: {"http", "smtp", "sandbox", "data_dir"}."""
    process, bound = start_postern(env={"POSTERN_OPERATOR_TOKEN": OPERATOR_TOKEN, "POSTERN_SMTP_ACCEPT": "any"})
    yield bound
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture
def next_mail(postern):
    """next_mail(to): the next message to `to` after the test began (after the last one it gave), whole."""
    def call(path):
        request = urllib.request.Request(postern["http"] + "/api/operator/messages" + path,
                                         headers={"Authorization": "Bearer " + OPERATOR_TOKEN})
        with urllib.request.urlopen(request, timeout=130) as response:
            return json.loads(response.read() or b"null")

    newest = call("?limit=1")["messages"]
    last = {}

    def next_mail(to, timeout=10):
        since = last.get(to) or (newest[0]["id"] if newest else None)
        query = {"to": to, "timeout": timeout, **({"since": since} if since else {})}
        found = call("/wait?" + urllib.parse.urlencode(query))
        assert found, f"no mail to {to} within {timeout} s"
        last[to] = found["id"]
        return call("/" + found["id"])

    return next_mail
