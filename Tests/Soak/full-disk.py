#!/usr/bin/env python3
"""`postern serve` with its data directory on a full disk: a size-capped tmpfs filled to the last page.

Needs root (mount -t tmpfs). Without it the check cannot run and FAILS, saying so: it never passes
without having filled a disk. `.ci/run` runs `make test` only; run `make soak` as root (or in a
container with CAP_SYS_ADMIN) to include it.

  1. Signups on both surfaces succeed; a filler file then takes every free page of the tmpfs.
  2. Signups (agent: POST /api/v1/session; mailbox: POST /api/accounts) answer 503 in the surface's
     documented error shape (agent: {"error":{"message","hint","docs_url"}} with Retry-After; mailbox:
     {"error":"service_unavailable"}); a few may still succeed while SQLite reuses pages it already
     holds, nothing else is allowed (no 500, no dropped connection), and /readyz answers 503.
  3. Reads keep working: /healthz, the JWKS, agent capability tokens for existing sessions, mailbox
     sign-in (POST /api/token) and account info (GET /api/accounts/{id}); the process stays up.
  4. The filler is deleted: signups succeed again at once, /readyz is 200, every acknowledged account
     logs in, PRAGMA integrity_check is ok, and SIGTERM still exits 0.
"""
import errno
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in Tests/Soak
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soaklib as F  # noqa: E402

SIZE = "24m"
PASSWORD = "full-disk-password"


def mount_tmpfs(path):
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", path],
                            capture_output=True, text=True)
    if result.returncode != 0:
        banner, name = "!" * 78, F.CHECK
        print(f"{banner}\n{name}: CANNOT RUN: mounting a {SIZE} tmpfs failed (needs root / CAP_SYS_ADMIN): "
              f"{result.stderr.strip() or result.returncode}\n{name}: the full-disk behaviour is NOT verified; "
              f"run `make soak` as root.\n{banner}", file=sys.stderr, flush=True)
        F.fail("cannot mount a tmpfs")


def fill(directory):
    """Writes a filler file until the tmpfs refuses a single byte; returns its size."""
    path = os.path.join(directory, "filler")
    written = 0
    with open(path, "wb", buffering=0) as f:
        for chunk in (1 << 20, 1 << 16, 4096, 512, 1):
            block = b"\xa5" * chunk
            while True:
                try:
                    written += f.write(block)
                except OSError as e:
                    F.expect(e.errno == errno.ENOSPC, f"filling the tmpfs: {e}")
                    break
    stat = os.statvfs(directory)
    F.expect(stat.f_bavail == 0, f"the tmpfs still has {stat.f_bavail} free blocks after filling")
    return path, written


def agent_refusal_ok(status, raw, headers):
    if status != 503:
        return False
    error = json.loads(raw).get("error", {})
    return (set(error) == {"message", "hint", "docs_url"} and "/llms.txt#" in error["docs_url"]
            and headers.get("retry-after") == "2")


def mailbox_refusal_ok(status, raw):
    return status == 503 and json.loads(raw) == {"error": "service_unavailable"}


class Accounts:
    def __init__(self):
        self.agents = {}  # username -> (apiKey, session JWT)
        self.mailboxes = {}  # address -> (id, token)


def signup_both(server, accounts, full):
    """One signup per surface; returns (agent outcome, mailbox outcome), each "created" or "refused"."""
    username, address = F.agent_username(), F.mailbox_address()
    when = "full" if full else "space free"
    try:
        with server.connected() as conn:
            status, headers, raw = F.agent_post_session(conn, F.agent_solved_challenge(conn), {"username": username})
            if status == 201:
                accounts.agents[username] = (json.loads(raw)["apiKey"], headers["authorization"][7:])
                agent = "created"
            else:
                F.expect(full and agent_refusal_ok(status, raw, headers),
                         f"agent signup ({when}): HTTP {status} {raw[:300]!r}")
                agent = "refused"
            status, _, raw = F.mailbox_create(conn, address, PASSWORD, F.mailbox_solved_challenge(conn))
            if status == 201:
                account = json.loads(raw)
                accounts.mailboxes[address] = (account["id"], account["token"])
                mailbox = "created"
            else:
                F.expect(full and mailbox_refusal_ok(status, raw),
                         f"mailbox signup ({when}): HTTP {status} {raw[:300]!r}")
                mailbox = "refused"
    except (OSError, http.client.HTTPException) as e:
        F.fail(f"connection failed during a signup ({when}): {e!r}")
    return agent, mailbox


def check_reads(server, accounts):
    """Step 3: every read answers as usual."""
    status, _, raw = server.request("GET", "/healthz")
    F.expect(status == 200, f"/healthz while full: {status} {raw[:200]!r}")
    status, _, raw = server.request("GET", "/.well-known/jwks.json")
    F.expect(status == 200 and json.loads(raw).get("keys"), f"JWKS while full: {status} {raw[:200]!r}")
    for username, (_, session) in list(accounts.agents.items())[:3]:
        status, headers, raw = server.request("POST", "/api/v1/capability",
                                              headers={"Authorization": "Bearer " + session})
        F.expect(status == 200 and headers.get("authorization", "").startswith("Bearer "),
                 f"agent capability for {username} while full: {status} {raw[:200]!r}")
    for address, (account_id, _) in list(accounts.mailboxes.items())[:3]:
        status, _, raw = server.request("POST", "/api/token", body={"address": address, "password": PASSWORD})
        F.expect(status == 200, f"mailbox sign-in for {address} while full: {status} {raw[:200]!r}")
        token = json.loads(raw)["token"]
        status, _, raw = server.request("GET", f"/api/accounts/{account_id}",
                                        headers={"Authorization": "Bearer " + token})
        F.expect(status == 200 and json.loads(raw).get("address") == address,
                 f"mailbox account info for {address} while full: {status} {raw[:200]!r}")


def check_logins(server, accounts):
    for username, (api_key, _) in accounts.agents.items():
        with server.connected() as conn:
            status, _, raw = F.agent_post_session(conn, F.agent_solved_challenge(conn), {"apiKey": api_key})
        F.expect(status == 200, f"agent {username} cannot log in after the disk was freed: {status} {raw[:200]!r}")
    for address in accounts.mailboxes:
        status, _, raw = server.request("POST", "/api/token", body={"address": address, "password": PASSWORD})
        F.expect(status == 200, f"mailbox {address} cannot sign in after the disk was freed: {status} {raw[:200]!r}")


def main():
    F.expect(os.path.exists("/proc/mounts"), "needs Linux")
    mount = tempfile.mkdtemp(prefix="postern-full-disk-")
    try:
        mount_tmpfs(mount)
    except F.CheckFailed:
        shutil.rmtree(mount, ignore_errors=True)
        raise
    try:
        with F.Server(os.path.join(mount, "data"), env=F.FAST_SIGNUPS).start() as server:
            accounts = Accounts()
            for _ in range(4):
                F.expect(signup_both(server, accounts, full=False) == ("created", "created"), "signup before filling")

            filler, size = fill(mount)
            outcomes = {"agent created": 0, "agent refused": 0, "mailbox created": 0, "mailbox refused": 0}
            streak = 0
            attempts = 0
            # Until both surfaces refused 5 times in a row (SQLite first reuses pages its files already own).
            while streak < 5 and attempts < 400:
                agent, mailbox = signup_both(server, accounts, full=True)
                outcomes["agent " + agent] += 1
                outcomes["mailbox " + mailbox] += 1
                streak = streak + 1 if (agent, mailbox) == ("refused", "refused") else 0
                attempts += 1
            F.expect(streak >= 5, f"signups kept succeeding on a full disk: {outcomes}")
            status, _, raw = server.request("GET", "/readyz")
            F.expect(status == 503, f"/readyz on a full disk: {status} {raw[:200]!r}")
            check_reads(server, accounts)
            F.expect(server.alive(), f"postern died on a full disk: {server.log_tail()}")

            os.remove(filler)
            after = [signup_both(server, accounts, full=False) for _ in range(5)]
            F.expect(all(a == ("created", "created") for a in after), f"signups after freeing space: {after}")
            status, _, raw = server.request("GET", "/readyz")
            F.expect(status == 200, f"/readyz after freeing space: {status} {raw[:200]!r}")
            check_logins(server, accounts)
            check = F.integrity(server.database)
            F.expect(check == "ok", f"integrity_check: {check}")
            server.stop()
            check = F.integrity(server.database)
            F.expect(check == "ok", f"integrity_check after stop: {check}")
            F.log(f"tmpfs {SIZE}, filler {size} bytes; {attempts} signup pairs on the full disk: {outcomes}; "
                  f"reads answered; after freeing: 5/5 signups per surface, "
                  f"{len(accounts.agents)} agents and {len(accounts.mailboxes)} mailboxes log in; integrity ok")
    finally:
        subprocess.run(["umount", mount], check=False)
        shutil.rmtree(mount, ignore_errors=True)


if __name__ == "__main__":
    F.run_check(main)
