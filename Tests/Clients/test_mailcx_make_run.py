"""mail.cx under the shipped configuration (issue 83 item 6): `postern serve --config config/postern.env` with the
settings `make run` adds (IMAP and POP3 on; here every port 0, named in the ports file, and a temporary data
directory) serves mail.cx's implicit mailboxes on `mailcx.localhost`: `/config` lists the domain, a message sent over
SMTP to an address there is in its inbox, and `/llms.txt` says how mail.cx is configured. The same under `serve
--profile test`, and the control: a server whose POSTERN_MAILCX_DOMAINS is empty refuses the address
(`domain_not_allowed`) and `/llms.txt` says why. Before the fix the shipped file named no domain: `/config` listed
none and every address was refused under `make run`."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, Server, http, postern
from postern_testkit.tempmail import deliver

check = Checks()
BINARY = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
CONFIG = os.path.join(ROOT, "config", "postern.env")
DOMAIN = "mailcx.localhost"
# The Makefile's `run` target: these four on top of the file (its fixed ports made free ones here).
MAKE_RUN = {"POSTERN_IMAP": "on", "POSTERN_IMAPS_PORT": "0", "POSTERN_POP3": "on", "POSTERN_POP3S_PORT": "0"}


def make_run_server(extra=None):
    """`serve --config config/postern.env` as `make run` starts it, every port 0, in a temporary data directory; the
    environment holds no POSTERN_ setting of this process. Returns (process, base URL as a Server, data directory)."""
    data = tempfile.mkdtemp(prefix="postern-make-run-")
    ports_file = os.path.join(data, "ports.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("POSTERN_")}
    env.update(MAKE_RUN, POSTERN_PORT="0", POSTERN_SMTP_PORT="0", POSTERN_SANDBOX_SMTP_PORT="0", POSTERN_IMAP_PORT="0",
               POSTERN_POP3_PORT="0", POSTERN_LOG_LEVEL="warning", **(extra or {}))
    process = subprocess.Popen([BINARY, "serve", "--config", CONFIG, "--data-dir", data, "--ports-file", ports_file],
                               env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not os.path.exists(ports_file) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not os.path.exists(ports_file):
        process.terminate()
        raise SystemExit(f"serve --config config/postern.env did not start ({process.poll()})")
    with open(ports_file) as f:
        bound = json.load(f)
    base = Server(bound["http"])
    base.smtp_port = int(bound["smtp"].rsplit(":", 1)[1])
    return process, base, data


def stop(process, data):
    process.terminate()
    process.wait(timeout=30)
    shutil.rmtree(data, ignore_errors=True)


def serves_mailcx(server, label):
    """mail.cx on `mailcx.localhost` at `server`: /config, a delivery read back from the inbox, the guide's line."""
    cx = server + "/mailcx/v1"
    status, _, config = http(cx, "GET", "/config")
    check(status == 200 and config["system_domains"] == [{"domain": DOMAIN, "default": True}],
          f"{label}: /config lists {DOMAIN} as the default ({status} {config})")
    address = f"make-run-{os.getpid()}@{DOMAIN}"
    deliver(server, address, "mail.cx under " + label)
    status, _, inbox = http(cx, "GET", f"/inbox/{address}")
    check(status == 200 and [e["subject"] for e in inbox["emails"]] == ["mail.cx under " + label],
          f"{label}: the message sent over SMTP is in {address}'s inbox ({status})")
    status, _, guide = http(server, "GET", "/llms.txt")
    line = next((l for l in guide.splitlines() if "mail.cx's REST API" in l), "")
    check(status == 200 and f"any address of {DOMAIN}" in line and "POSTERN_MAILCX_DOMAINS" in line
          and "kept 3600 s" in line, f"{label}: /llms.txt says how mail.cx is configured ({line[:160]}...)")


def main():
    process, server, data = make_run_server()
    try:
        serves_mailcx(server, "make run")
    finally:
        stop(process, data)

    with postern() as server:
        serves_mailcx(server, "--profile test")

    # The control: no domain, and the guide says so and names the key.
    process, server, data = make_run_server({"POSTERN_MAILCX_DOMAINS": ""})
    try:
        status, _, config = http(server + "/mailcx/v1", "GET", "/config")
        check(status == 200 and config["system_domains"] == [], f"no domain: /config lists none ({config})")
        status, _, body = http(server + "/mailcx/v1", "GET", f"/inbox/someone@{DOMAIN}")
        check(status == 403 and body == {"error": "domain_not_allowed"}, f"no domain: 403 domain_not_allowed ({body})")
        _, _, guide = http(server, "GET", "/llms.txt")
        line = next((l for l in guide.splitlines() if "mail.cx's REST API" in l), "")
        check("serves no domain" in line and "POSTERN_MAILCX_DOMAINS" in line,
              f"no domain: /llms.txt says mail.cx serves none and names the key ({line[:160]}...)")
    finally:
        stop(process, data)
    check.finish("test_mailcx_make_run")


if __name__ == "__main__":
    main()
