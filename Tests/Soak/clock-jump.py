#!/usr/bin/env python3
"""`postern serve` under libfaketime: the wall clock jumps ten minutes ahead, back, and ten minutes behind.

Which clock each part uses (and what this check expects of it):
  - JWT `exp`/`iat` (challenges, sessions, mailbox tokens) and mailbox challenge expiry: the wall clock,
    as they must be (other parties read those times). A token is accepted exactly when its exp says so
    at the current wall time: a jump ahead expires it early, a jump back revives an unused challenge
    whose exp is still ahead.
  - The single-use ledger of consumed challenges: rows keyed by the challenge's wall-clock expiry and
    purged by a wall-clock sweep every 60 s. A consumed challenge must stay consumed across any jump.
  - Rate limits (mailbox token buckets, remote-hash per-address buckets) and the agent's dynamic
    difficulty window: they measure elapsed time, so a wall-clock jump must neither reset them early
    nor stretch them (no lockout past the real refill time).
  - Connection timeouts: the monotonic clock (not faked here: FAKETIME_DONT_FAKE_MONOTONIC=1, as a real
    clock step leaves CLOCK_MONOTONIC alone).

The offset lives in a file libfaketime re-reads on every call (FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE).
FAKETIME_SHARED is set to names that do not exist: otherwise libfaketime's constructor calls setenv(),
which moves `environ`, and the Swift runtime (which finds argv just below the original `environ` on
Linux) then sees no command-line arguments at all.
"""
import email.utils
import json
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in Tests/Soak
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soaklib as F  # noqa: E402

LIBFAKETIME_PATHS = ["/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                     "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
                     "/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1"]
PASSWORD = "clock-jump-password"
AHEAD, BEHIND = 600, -600


class Clock:
    def __init__(self, path):
        self.path = path
        self.set(0)

    def set(self, offset):
        with open(self.path + ".tmp", "w") as f:
            f.write(f"{offset:+d}\n")
        os.replace(self.path + ".tmp", self.path)
        self.offset = offset


def server_offset(server):
    """The server's wall clock minus ours, from its Date header (whole seconds)."""
    _, headers, _ = server.request("GET", "/healthz")
    served = email.utils.parsedate_to_datetime(headers["date"]).timestamp()
    return served - time.time()


def agent_challenge(server):
    with server.connected() as conn:
        return F.agent_solved_challenge(conn)


def agent_difficulty(server):
    status, _, raw = server.request("POST", "/api/v1/challenge")
    F.expect(status == 200, f"agent challenge: {status} {raw[:200]!r}")
    return int(json.loads(raw)["difficulty"])


def agent_signup(server, solved, username=None):
    with server.connected() as conn:
        status, _, raw = F.agent_post_session(conn, solved, {"username": username or F.agent_username()})
    return status, raw


def mailbox_challenge(server):
    with server.connected() as conn:
        return F.mailbox_solved_challenge(conn)


def mailbox_signup(server, proof, address=None):
    status, _, raw = server.request(
        "POST", "/api/accounts", body={"address": address or F.mailbox_address(), "password": PASSWORD, "pow": proof})
    return status, raw


def remote_status(server):
    status, _, _ = server.request("GET", "/example.txt")
    return status


def exhaust_remote(server):
    """Spends the remote-hash bucket (60 a minute) until it answers 429; returns how many were allowed."""
    allowed = 0
    while remote_status(server) == 200:
        allowed += 1
        F.expect(allowed <= 200, "the remote-hash rate limit never answered 429")
    return allowed


def wait_for_purge(server, after_lines, timeout):
    """Waits until the log shows a periodic ledger purge after line `after_lines`."""
    def purged():
        return any("expired challenges purged" in line for line in server.log_tail(10 ** 7).splitlines()[after_lines:])
    if not F.wait_until(purged, timeout, step=1):
        F.fail(f"no periodic purge logged within {timeout} s")


def main():
    library = next((p for p in LIBFAKETIME_PATHS if os.path.exists(p)), None)
    F.expect(library, "libfaketime.so.1 not found (make soak installs libfaketime)")
    clock = Clock(F.artifact("clock-jump-offset"))
    env = dict(F.FAST_SIGNUPS)
    env.update({
        "POSTERN_RATE_LIMITS": "on",
        "POSTERN_AGENT_POW_DYNAMIC": "on",
        "POSTERN_AGENT_POW_MAX_DIFFICULTY": "3",
        "POSTERN_LOG_LEVEL": "trace",  # the periodic purge logs at trace level
        "LD_PRELOAD": library,
        "FAKETIME_TIMESTAMP_FILE": clock.path,
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        "FAKETIME_SHARED": f"/postern-soak-none-{os.getpid()} /postern-soak-none-{os.getpid()}",
    })
    figures = {}
    with F.Server(env=env).start() as server:
        F.expect(abs(server_offset(server)) < 3, "the server's clock is off before any jump")
        clock.set(AHEAD)
        F.expect(abs(server_offset(server) - AHEAD) < 3, "libfaketime does not move the server's clock")
        clock.set(0)

        # --- At the true time ---
        stale_agent = agent_challenge(server)  # unused until after the jumps
        stale_mailbox = mailbox_challenge(server)
        used_agent = agent_challenge(server)
        status, raw = agent_signup(server, used_agent)
        F.expect(status == 201, f"agent signup: {status} {raw[:200]!r}")
        used_mailbox = mailbox_challenge(server)
        address = F.mailbox_address()
        status, raw = mailbox_signup(server, used_mailbox, address)
        F.expect(status == 201, f"mailbox signup: {status} {raw[:200]!r}")
        account = json.loads(raw)
        token = account["token"]
        base = agent_difficulty(server)
        for _ in range(40):
            raised = agent_difficulty(server)
        F.expect(raised > base, f"40 challenges in a few seconds did not raise the difficulty ({base} -> {raised})")
        figures["difficulty"] = f"{base}->{raised}"
        figures["remote allowed before 429"] = exhaust_remote(server)
        log_lines = len(server.log_tail(10 ** 7).splitlines())
        # The mailbox account-creation bucket (1 per 8 s): spend it right before the jump.
        for _ in range(3):
            status, raw = mailbox_signup(server, mailbox_challenge(server))
            if status == 429:
                break
            F.expect(status == 201, f"mailbox signup: {status} {raw[:200]!r}")
        F.expect(status == 429, "the mailbox account-creation limit never answered 429")

        # --- Ten minutes ahead ---
        clock.set(AHEAD)
        status, raw = mailbox_signup(server, mailbox_challenge(server))
        F.expect(status == 429, f"mailbox creation limit reset by a +10 min jump: {status} {raw[:200]!r}")
        F.expect(agent_difficulty(server) == raised, "agent difficulty window reset by a +10 min jump")
        last_counted = time.monotonic()
        F.expect(remote_status(server) == 429, "remote-hash rate limit reset by a +10 min jump")
        status, raw = agent_signup(server, stale_agent)
        F.expect(status == 401, f"agent challenge past its exp after +10 min: {status} {raw[:200]!r}")
        status, _, raw = server.request("GET", f"/api/accounts/{account['id']}",
                                        headers={"Authorization": "Bearer " + token})
        F.expect(status == 200, f"mailbox token (exp in 7 days) after +10 min: {status} {raw[:200]!r}")
        # Let the periodic purge run while the clock is ahead: every challenge used so far has expired.
        wait_for_purge(server, log_lines, timeout=90)
        status, raw = mailbox_signup(server, stale_mailbox)  # the creation bucket has refilled meanwhile
        F.expect(status == 403, f"mailbox challenge past its expiry after +10 min: {status} {raw[:200]!r}")
        # The difficulty window is 50 to 60 s: let a full minute pass since the last counted challenge.
        time.sleep(max(0.0, last_counted + 62 - time.monotonic()))

        # --- Back to the true time (a jump of -10 min) ---
        clock.set(0)
        F.expect(remote_status(server) == 200, "remote-hash rate limit still refusing after a real minute "
                                               "(a -10 min jump stopped its refill)")
        F.expect(agent_difficulty(server) == base, "agent difficulty still raised after a real minute "
                                                   "(a -10 min jump stretched its window)")
        status, raw = agent_signup(server, used_agent)
        F.expect(status == 401, f"a used agent challenge was accepted again after +10/-10 min: {status} {raw[:200]!r}")
        status, raw = agent_signup(server, stale_agent)
        F.expect(status == 201, f"an unused agent challenge whose exp is ahead, after -10 min: {status} {raw[:200]!r}")
        time.sleep(8.5)  # the mailbox creation bucket refills one per 8 real seconds
        status, raw = mailbox_signup(server, used_mailbox)
        F.expect(status == 403, f"a used mailbox challenge was accepted again after +10/-10 min: {status} {raw[:200]!r}")
        time.sleep(8.5)
        status, raw = mailbox_signup(server, stale_mailbox)
        F.expect(status == 201, f"an unused mailbox challenge within its expiry, after -10 min: {status} {raw[:200]!r}")

        # --- Ten minutes behind ---
        clock.set(BEHIND)
        status, _, raw = server.request("GET", f"/api/accounts/{account['id']}",
                                        headers={"Authorization": "Bearer " + token})
        figures["token issued 10 min 'in the future' accepted"] = status == 200
        status, _, raw = server.request("POST", "/api/token", body={"address": address, "password": PASSWORD})
        F.expect(status == 200, f"mailbox sign-in after -10 min: {status} {raw[:200]!r}")
        fresh = json.loads(raw)["token"]
        status, _, raw = server.request("GET", f"/api/accounts/{account['id']}",
                                        headers={"Authorization": "Bearer " + fresh})
        F.expect(status == 200, f"a token issued after -10 min: {status} {raw[:200]!r}")
        exhaust_remote(server)
        time.sleep(2.5)
        F.expect(remote_status(server) == 200, "remote-hash rate limit did not refill in real time after -10 min")
        behind = agent_challenge(server)
        status, raw = agent_signup(server, behind)
        F.expect(status == 201, f"agent challenge issued and used 10 min behind: {status} {raw[:200]!r}")
        behind_unused = agent_challenge(server)
        clock.set(0)
        status, raw = agent_signup(server, behind_unused)
        F.expect(status == 401, f"a challenge issued 10 min behind, exp long past at the true time: "
                                f"{status} {raw[:200]!r}")
        F.expect(server.alive(), "postern died")
        server.stop()
    F.log(f"offsets +600/0/-600/0 s; {figures}")


if __name__ == "__main__":
    F.run_check(main)
