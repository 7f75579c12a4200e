#!/usr/bin/env python3
"""A soak of the real `postern serve`: mixed traffic on all three surfaces at a steady rate for
SOAK_SECONDS (default 600), the server's RSS sampled every second from /proc/PID/status.

Traffic, each stream paced on its own thread (SOAK_RATE cycles per second per surface, default 1):
  agent    POST /api/v1/challenge -> scrypt proof -> POST /api/v1/session (signup, 201) ->
           POST /api/v1/capability (200); every 4th cycle also a login with the API key (200)
  mailbox  GET /api/challenge -> SHA-256 proof -> POST /api/accounts (201) -> POST /api/token (200) ->
           GET /api/accounts/{id} (200)
  remote   POST /register (201, the hash URL points at a local origin serving an Argon2id hash) ->
           POST /login (200) -> POST /validate (200)
  common   GET /healthz, /readyz, /.well-known/jwks.json, /openapi.json (90 KB), /llms.txt, /metrics,
           a 404 and a 405, SOAK_COMMON_RATE (default 8) per second
SOAK_STREAMS=agent,remote (say) runs only those streams, to tell which one makes memory grow.
Each stream keeps one keep-alive connection and opens a new one every 25 requests, so connection
setup and teardown are soaked too. Difficulties are low (agent 0, mailbox 8 bits, both static), rate
limits are off and private hash URLs are allowed (the origin is on loopback).

Fails on any answer other than the expected one (or a transport error), and when memory is not flat
after warm-up. Warm-up is the first 20% of the run, at least 120 s: in the first two minutes glibc
keeps Argon2's freed 19 MiB blocks (its mmap threshold rises past them after the first frees, about
+38 MiB once) and SQLite's caches fill fastest; a run under 240 s gets no memory verdict. After it, RSS is taken as the floor
(minimum) of each 10 s window, because one Argon2 hash holds 19 MiB for tens of milliseconds and a
sample that lands on it says nothing about what the process keeps. Criterion: the least-squares slope
of those floors is at most SOAK_MAX_SLOPE (default 256) KiB per minute, and the highest floor of the
last half is at most the highest of the first half + SOAK_MARGIN_KIB (default 2048). At the default
rate (about 18 requests/s) 256 KiB/min is about 230 bytes kept per request, or 1.2 KiB per
agent/mailbox/remote cycle. What does grow, about 100 KiB/min here, is SQLite's page cache filling as
the database grows (bounded by cache_size, 2000 KiB per connection) and libdispatch's continuation
caches (heaptrack attributes the unfreed bytes to those two; see docs/soak.md).
Writes artifacts/soak/soak.csv (one row per second) and artifacts/soak/soak-summary.md (per minute, with
an ASCII plot of the curve), and prints the summary.
"""
import csv
import http.client
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections import Counter

sys.dont_write_bytecode = True  # no __pycache__ in Tests/Soak
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soaklib as F  # noqa: E402

SECONDS = int(os.environ.get("SOAK_SECONDS", "600"))
RATE = float(os.environ.get("SOAK_RATE", "1"))
COMMON_RATE = float(os.environ.get("SOAK_COMMON_RATE", "8"))
MAX_SLOPE = float(os.environ.get("SOAK_MAX_SLOPE", "256"))
MARGIN_KIB = int(os.environ.get("SOAK_MARGIN_KIB", "2048"))
MAILBOX_DIFFICULTY = 8
PASSWORD = "soak-password-1"


class Unexpected(Exception):
    pass


class Stream:
    """One surface's client: a keep-alive connection renewed every 25 requests, paced cycles, counts."""

    def __init__(self, name, server, stats):
        self.name, self.server, self.stats = name, server, stats
        self.conn, self.used = None, 0

    def call(self, method, path, want, body=None, headers=None):
        """One request; returns (headers, body) when the status is `want`, raises Unexpected otherwise."""
        if self.conn is None or self.used >= 25:
            if self.conn:
                self.conn.close()
            self.conn, self.used = self.server.connection(timeout=30), 0
        self.used += 1
        try:
            status, got, raw = F.send(self.conn, method, path, body, headers)
        except (OSError, http.client.HTTPException) as e:
            self.conn.close()
            self.conn = None
            self.stats.count(self.name, False)
            raise Unexpected(f"{method} {path}: {type(e).__name__}: {e}")
        self.stats.count(self.name, status == want)
        if status != want:
            raise Unexpected(f"{method} {path}: HTTP {status} (want {want}): {raw[:200]!r}")
        return got, raw

    def run(self, cycle, rate, stop):
        period = 1 / rate
        next_start = time.monotonic()
        n = 0
        while not stop.is_set():
            try:
                cycle(self, n)
            except Unexpected as e:
                self.stats.error(self.name, str(e))
            except (ValueError, KeyError, RuntimeError) as e:
                self.stats.error(self.name, f"malformed answer: {type(e).__name__}: {e}")
            n += 1
            # Steady pace: no catching up in bursts after a slow cycle.
            next_start = max(next_start + period, time.monotonic() - period)
            stop.wait(max(0.0, next_start - time.monotonic()))


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = Counter()
        self.errors = Counter()
        self.error_texts = []

    def count(self, surface, ok):
        with self.lock:
            self.requests[surface] += 1

    def error(self, surface, text):
        with self.lock:
            self.errors[surface] += 1
            if len(self.error_texts) < 20:
                self.error_texts.append(f"{surface}: {text}")

    def snapshot(self):
        with self.lock:
            return Counter(self.requests), sum(self.errors.values())


def agent_challenge(s):
    """A challenge asked for on the stream, solved: (bearer, proof fields of the session body)."""
    bearer, pow_hex, nonce, _ = F.agent_proof(*s.call("POST", "/api/v1/challenge", 200))
    return bearer, {"powHex": pow_hex, "nonce": nonce}


def agent_cycle(s, n):
    bearer, proof = agent_challenge(s)
    headers, raw = s.call("POST", "/api/v1/session", 201, dict(proof, username="s" + secrets.token_hex(8)),
                          {"Authorization": "Bearer " + bearer})
    session, api_key = headers.get("authorization", "")[7:], json.loads(raw)["apiKey"]
    s.call("POST", "/api/v1/capability", 200, headers={"Authorization": "Bearer " + session})
    if n % 4 == 3:
        bearer, proof = agent_challenge(s)
        s.call("POST", "/api/v1/session", 200, dict(proof, apiKey=api_key), {"Authorization": "Bearer " + bearer})


def mailbox_cycle(s, n):
    _, raw = s.call("GET", "/api/challenge", 200)
    address = f"m{secrets.token_hex(8)}@{F.MAILBOX_DOMAIN}"
    _, raw = s.call("POST", "/api/accounts", 201,
                    {"address": address, "password": PASSWORD, "pow": F.mailbox_proof(raw)})
    account_id = json.loads(raw)["id"]
    _, raw = s.call("POST", "/api/token", 200, {"address": address, "password": PASSWORD})
    token = json.loads(raw)["token"]
    s.call("GET", f"/api/accounts/{account_id}", 200, headers={"Authorization": "Bearer " + token})


def remote_cycle(hash_url):
    def cycle(s, n):
        email = f"r{secrets.token_hex(8)}@example.com"
        s.call("POST", "/register", 201, {"email": email, "password_hash_url": hash_url, "password": PASSWORD})
        _, raw = s.call("POST", "/login", 200, {"email": email, "password": PASSWORD})
        s.call("POST", "/validate", 200, {"token": json.loads(raw)["token"]})
    return cycle


COMMON = [("GET", "/healthz", 200), ("GET", "/readyz", 200), ("GET", "/.well-known/jwks.json", 200),
          ("GET", "/openapi.json", 200), ("GET", "/llms.txt", 200), ("GET", "/metrics", 200),
          ("GET", "/no/such/path", 404), ("DELETE", "/healthz", 405)]


def common_cycle(s, n):
    method, path, want = COMMON[n % len(COMMON)]
    s.call(method, path, want)


def argon2_hash(password):
    """An Argon2id hash of `password` at Mail.td's cost, for the remote-hash origin to serve."""
    made = subprocess.run([sys.executable, os.path.join(F.REPO, "scripts", "bench-lib.py"), "argon2hash", password],
                          capture_output=True, text=True)
    if made.returncode != 0:
        F.fail("argon2-cffi is needed for the origin's hash (python3 -m pip install argon2-cffi)")
    return made.stdout.strip()


def slope_kib_per_min(points):
    """Least-squares slope of (second, kib) points, in KiB per minute."""
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in points)
    return sxy / sxx * 60 if sxx else 0.0


def ascii_plot(rows, reduce, width=60, height=12):
    """RSS (MiB) against time: one column per bucket of seconds, `reduce` (max or min) of its samples."""
    if not rows:
        return ""
    bucket = max(1, -(-len(rows) // width))
    cols = [reduce(r["rss_kib"] for r in rows[i:i + bucket]) / 1024 for i in range(0, len(rows), bucket)]
    lo, hi = min(cols), max(cols)
    lo, hi = (lo - 0.5, hi + 0.5) if hi - lo < 1 else (lo, hi)
    lines = []
    for level in range(height, -1, -1):
        value = lo + (hi - lo) * level / height
        cells = "".join("*" if round((c - lo) / (hi - lo) * height) == level else
                        (":" if round((c - lo) / (hi - lo) * height) > level else " ") for c in cols)
        lines.append(f"{value:7.1f} MiB |{cells}")
    lines.append(" " * 12 + "+" + "-" * len(cols))
    first, last = f"{rows[0]['second']} s", f"{rows[-1]['second']} s"
    lines.append(" " * 12 + f" {first}{' ' * max(1, len(cols) - len(first) - len(last))}{last}  ({bucket} s per column)")
    return "\n".join(lines)


def soak_run():
    """Runs the traffic for SECONDS; returns the per-second rows (also written as CSV) and error texts."""
    env = {"POSTERN_RATE_LIMITS": "off", "POSTERN_AGENT_POW_DIFFICULTY": "0", "POSTERN_AGENT_POW_DYNAMIC": "off",
           "POSTERN_MAILBOX_POW_DIFFICULTY": str(MAILBOX_DIFFICULTY), "POSTERN_REMOTE_HASH_ALLOW_PRIVATE": "true"}
    stats = Stats()
    stop = threading.Event()
    rows = []
    csv_path = F.artifact("soak.csv")
    with F.Origin(argon2_hash(PASSWORD)) as origin, F.Server(env=env).start() as server:
        streams = [(Stream("agent", server, stats), agent_cycle, RATE),
                   (Stream("mailbox", server, stats), mailbox_cycle, RATE),
                   (Stream("remote", server, stats), remote_cycle(origin.url), RATE),
                   (Stream("common", server, stats), common_cycle, COMMON_RATE)]
        only = [n for n in os.environ.get("SOAK_STREAMS", "").split(",") if n]  # to tell which surface grows
        streams = [x for x in streams if not only or x[0].name in only]
        threads = [threading.Thread(target=s.run, args=(c, r, stop), daemon=True) for s, c, r in streams]
        F.log(f"{SECONDS} s against pid {server.pid} on {server.base}; CSV {csv_path}")
        try:
            start = time.monotonic()
            rows.append({"second": 0, "rss_kib": server.rss_kib(), "cpu_s": server.cpu_seconds(),
                         "sockets": server.sockets(), "agent": 0, "mailbox": 0, "remote": 0, "common": 0, "errors": 0})
            for t in threads:
                t.start()
            for second in range(1, SECONDS + 1):
                time.sleep(max(0.0, start + second - time.monotonic()))
                if not server.alive():
                    F.fail(f"postern exited at {second} s")
                counts, errors = stats.snapshot()
                rows.append({"second": second, "rss_kib": server.rss_kib(), "cpu_s": round(server.cpu_seconds(), 2),
                             "sockets": server.sockets(), "agent": counts["agent"], "mailbox": counts["mailbox"],
                             "remote": counts["remote"], "common": counts["common"], "errors": errors})
                if second % 60 == 0:
                    r = rows[-1]
                    print(f"  {second:4} s rss={r['rss_kib'] / 1024:.1f} MiB requests agent={r['agent']} "
                          f"mailbox={r['mailbox']} remote={r['remote']} common={r['common']} errors={errors}",
                          flush=True)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=60)
        server.stop()
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)

    return rows, stats.error_texts


def report(rows, error_texts):
    """Prints and writes the summary of per-second rows; returns what fails the check."""
    seconds = rows[-1]["second"]
    warm = min(max(120, seconds // 5), seconds)
    # The floor of each 10 s window: an Argon2 hash holds 19 MiB for a few tens of ms, and a sample that
    # lands on one (or two at once) says nothing about what the process keeps.
    floors = [(rows[i]["second"], min(r["rss_kib"] for r in rows[i:i + 10])) for i in range(warm, len(rows) - 9, 10)]
    half = len(floors) // 2
    slope = slope_kib_per_min(floors)
    first_max = max((k for _, k in floors[:half]), default=0)
    last_max = max((k for _, k in floors[half:]), default=0)
    final = rows[-1]
    cpu = final["cpu_s"] - rows[0]["cpu_s"]
    total = sum(final[s] for s in ("agent", "mailbox", "remote", "common"))
    lines = [
        f"- Run: {seconds} s, {RATE:g} cycle/s per surface + {COMMON_RATE:g} common request/s; "
        f"server CPU {cpu:.0f} s ({cpu / seconds:.2f} core).",
        f"- Requests: agent {final['agent']}, mailbox {final['mailbox']}, remote {final['remote']}, "
        f"common {final['common']}, total {total} ({total / seconds:.1f}/s); errors {final['errors']}.",
        f"- RSS: start {rows[0]['rss_kib'] / 1024:.1f} MiB, after warm-up ({warm} s) "
        f"{rows[warm]['rss_kib'] / 1024:.1f} MiB, end {final['rss_kib'] / 1024:.1f} MiB, "
        f"highest sample {max(r['rss_kib'] for r in rows) / 1024:.1f} MiB.",
        f"- After warm-up, floors of 10 s windows: slope {slope:+.1f} KiB/min (bound {MAX_SLOPE:g}); highest floor "
        f"of the first half {first_max / 1024:.1f} MiB, of the last half {last_max / 1024:.1f} MiB "
        f"(margin {MARGIN_KIB / 1024:g} MiB).",
        "",
        "| minute | RSS min (MiB) | RSS max (MiB) | RSS at end (MiB) | requests | server CPU (s) | sockets max |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in range(0, -(-seconds // 60)):
        chunk = [r for r in rows if m * 60 < r["second"] <= (m + 1) * 60]
        if not chunk:
            continue
        before = rows[m * 60]
        reqs = sum(chunk[-1][s] - before[s] for s in ("agent", "mailbox", "remote", "common"))
        lines.append(f"| {m + 1} | {min(r['rss_kib'] for r in chunk) / 1024:.1f} | "
                     f"{max(r['rss_kib'] for r in chunk) / 1024:.1f} | {chunk[-1]['rss_kib'] / 1024:.1f} | {reqs} | "
                     f"{chunk[-1]['cpu_s'] - before['cpu_s']:.1f} | {max(r['sockets'] for r in chunk)} |")
    lines += ["", "RSS, highest sample of each column (the spikes are Argon2's 19 MiB working memory, one or two",
              "hashes at once, freed again within the second):", "", "```", ascii_plot(rows, max), "```", "",
              "RSS, lowest sample of each column from 10 s on (what the process keeps):", "", "```",
              ascii_plot(rows[10:], min), "```"]
    summary = "\n".join(lines)
    with open(F.artifact("soak-summary.md"), "w") as f:
        f.write(summary + "\n")
    print(summary)

    problems = []
    if final["errors"]:
        problems.append(f"{final['errors']} error answers; first: " + " || ".join(error_texts[:5]))
    if not os.environ.get("SOAK_STREAMS") and min(final["agent"], final["mailbox"], final["remote"]) == 0:
        problems.append("a surface got no traffic at all")
    if seconds < 240:
        F.log(f"{seconds} s is too short for a memory verdict (warm-up alone is {warm} s)")
    elif slope > MAX_SLOPE:
        problems.append(f"RSS grows {slope:.1f} KiB/min after warm-up (bound {MAX_SLOPE:g})")
    if seconds >= 240 and last_max > first_max + MARGIN_KIB:
        problems.append(f"RSS floor of the last half {last_max} KiB exceeds the first half's {first_max} KiB "
                        f"+ {MARGIN_KIB} KiB")
    return problems


def main():
    if sys.argv[1:2] == ["--summarize"] and len(sys.argv) == 3:  # again from a CSV this check wrote
        with open(sys.argv[2]) as f:
            rows = [{k: float(v) if k == "cpu_s" else int(v) for k, v in r.items()} for r in csv.DictReader(f)]
        problems = report(rows, [])
    else:
        rows, error_texts = soak_run()
        problems = report(rows, error_texts)
    F.fail_if_any(problems)
    F.log("no errors" + ("; memory flat after warm-up" if rows[-1]["second"] >= 240 else ""))


if __name__ == "__main__":
    F.run_check(main)
