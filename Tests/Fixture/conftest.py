"""The pytest fixture docs/testing.md shows, as written (a test below holds the two to each other): one `postern
serve --profile test` per xdist worker, its addresses read from the JSON line it prints, and the operator's live
events as a queue (`websockets`' synchronous client). scripts/client-tests sets POSTERN_BIN to the repository's debug
build and installs `websockets`."""

import json
import os
import subprocess
import time
import urllib.request

import pytest
from websockets.sync.client import connect

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
    """next_mail(to): the next message to `to` after the test began (after the last one it gave for `to`: one mail to
    ann and bob is the next of each), whole. It waits on the operator's live events (a WebSocket opened before the
    test runs), not by polling."""
    def call(path):
        request = urllib.request.Request(postern["http"] + "/api/operator/messages" + path,
                                         headers={"Authorization": "Bearer " + OPERATOR_TOKEN})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    url = postern["http"].replace("http", "ws", 1) + "/api/operator/events"
    with connect(url, additional_headers={"Authorization": "Bearer " + OPERATOR_TOKEN}) as events:
        arrived = []  # every message seen, in arrival order
        given = set()  # (id, recipient): one copy to ann and bob is given once to each

        def next_mail(to, timeout=10):
            to, deadline = to.lower(), time.monotonic() + timeout
            while not (found := [m for m in arrived if to in [m["address"], *m["envelope_to"]]
                                 and (m["id"], to) not in given]):
                try:
                    event = json.loads(events.recv(timeout=max(deadline - time.monotonic(), 0.01)))
                except TimeoutError:
                    raise AssertionError(f"no mail to {to} within {timeout} s") from None
                if event["type"] == "new":
                    arrived.append(event["message"])
            given.add((found[0]["id"], to))
            return call("/" + found[0]["id"])

        yield next_mail
