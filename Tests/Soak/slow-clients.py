#!/usr/bin/env python3
"""Slow clients against the real `postern serve`: slowhttptest in slow-header (-H), slow-body (-B) and
slow-read (-X) modes, SLOW_CONNECTIONS (default 2000) connections each, while a probe keeps asking.

What the server's timeouts (Sources/HTTPServer/ConnectionTimeouts.swift, HTTPServerConfiguration.swift)
do to each mode:
  -H  the request head never ends. The header-read timeout (10 s) runs from a request's first byte to
      its last and is not restarted by later bytes, so each connection gets 408 and is closed 10 s
      (+ one sweep, <= 0.5 s) after its first byte, however often the client trickles.
  -B  the head is complete, the body (Content-Length 8192, under /register's 16 KiB limit) trickles.
      The same header-read timeout covers the body, so the same 10 s bound and 408.
  -X  full requests for /openapi.json (90 KB, pipelined), read through a tiny receive window. The
      write timeout (30 s) runs while a response waits in our buffer and restarts on each send that
      makes progress; a connection whose reader stalls 30 s is closed, one that drains is served.
      Once the last bytes are in the kernel's buffer the idle timeout (30 s) takes over. Reading
      pauses while output waits (back-pressure), so pipelined requests cannot pile up responses.
      At 32 bytes per 5 s through a 512-1024 byte window the kernel's send buffer never frees enough
      for another send, so the write timeout closes every connection 30 s in. slowhttptest still
      counts them as connected (it reads too slowly to reach the FIN behind the queued bytes) and
      ends on its time limit; the server's own descriptors are what this check watches.

The probe: every PROBE_INTERVAL_MS (150) a new connection asks GET /healthz then POST /api/v1/challenge
on it. The check fails when any probe answer is not 200 or takes longer than PROBE_BOUND_MS (1000;
connect included for the first request), when slowhttptest reports the service unavailable, when the
server still holds slow connections (its socket descriptors in /proc/PID/fd) later than the mode's
timeout + 5 s after the last of them opened, when the server averages more than SLOW_MAX_CPU (0.5) of a core during a mode (a busy loop would take
a whole core), or uses more than 5% of a core in the 5 s after the connections are gone.

Rate limits are off and the agent difficulty is static, so the probe's challenge stream cannot be
refused for its own rate. POSTERN_MAX_CONNECTIONS stays at 4096 (the default, above 2000 + probes), and the
per-client cap is off (POSTERN_MAX_CONNECTIONS_PER_CLIENT=0): slowhttptest and the probe share one address, and
this soak measures what slow clients cost, not that one address is refused past its 512 (HTTPServerTests do);
the descriptor soft limit is raised to the hard limit (inherited by the server and slowhttptest) when
it is below 2 * connections + 512.
"""
import csv
import glob
import http.client
import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in Tests/Soak
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soaklib as F  # noqa: E402

CONNECTIONS = int(os.environ.get("SLOW_CONNECTIONS", "2000"))
PROBE_INTERVAL = int(os.environ.get("PROBE_INTERVAL_MS", "150")) / 1000
PROBE_BOUND_MS = float(os.environ.get("PROBE_BOUND_MS", "1000"))
MAX_CPU = float(os.environ.get("SLOW_MAX_CPU", "0.5"))
HEADER_TIMEOUT, IDLE_TIMEOUT, WRITE_TIMEOUT = 10, 30, 30  # HTTPServerConfiguration defaults
CONNECTION_RATE = 400


class Probe:
    """A thread that asks every PROBE_INTERVAL and remembers latencies per current mode."""

    def __init__(self, server):
        self.server = server
        self.mode = "idle"
        self.latencies = {}  # mode -> [ms]
        self.failures = {}  # mode -> [text]
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def record(self, mode, ms=None, failure=None):
        with self.lock:
            if ms is not None:
                self.latencies.setdefault(mode, []).append(ms)
                if ms > PROBE_BOUND_MS:
                    self.failures.setdefault(mode, []).append(f"{failure or 'answer'} took {ms:.0f} ms")
                    return
            if failure and ms is None:
                self.failures.setdefault(mode, []).append(failure)

    def ask(self, conn, method, path, what):
        mode = self.mode
        t0 = time.perf_counter()
        try:
            status, _, _ = F.send(conn, method, path)
        except (OSError, http.client.HTTPException) as e:
            self.record(mode, failure=f"{what}: {type(e).__name__}: {e} after "
                                      f"{(time.perf_counter() - t0) * 1000:.0f} ms")
            return False
        ms = (time.perf_counter() - t0) * 1000
        if status != 200:
            self.record(mode, failure=f"{what}: HTTP {status}")
            return False
        self.record(mode, ms, what)
        return True

    def run(self):
        while not self.stop.is_set():
            started = time.monotonic()
            with self.server.connected(timeout=5) as conn:
                if self.ask(conn, "GET", "/healthz", "GET /healthz"):
                    self.ask(conn, "POST", "/api/v1/challenge", "POST /api/v1/challenge")
            self.stop.wait(max(0.0, PROBE_INTERVAL - (time.monotonic() - started)))


def slowhttptest_args(mode, base, prefix):
    common = ["-c", str(CONNECTIONS), "-r", str(CONNECTION_RATE), "-p", "3", "-g", "-o", prefix]
    if mode == "slow-header":
        return ["-H", "-u", f"{base}/healthz", "-t", "GET", "-i", "3", "-x", "24", "-l", "60"] + common
    if mode == "slow-body":
        return ["-B", "-u", f"{base}/register", "-t", "POST", "-s", "8192", "-i", "3", "-x", "24",
                "-l", "60"] + common
    return ["-X", "-u", f"{base}/openapi.json", "-t", "GET", "-k", "3", "-w", "512", "-y", "1024",
            "-n", "5", "-z", "32", "-l", "60"] + common


def read_csv(prefix):
    """slowhttptest's per-second CSV: seconds, closed, pending, connected, service available."""
    paths = sorted(glob.glob(prefix + "*.csv"))
    if not paths:
        return None, []
    with open(paths[-1]) as f:
        rows = list(csv.reader(f))
    return paths[-1], rows[1:]


def run_mode(server, probe, mode, bound):
    """Runs slowhttptest once; samples the server's sockets until they are back to the baseline."""
    prefix = F.artifact(f"slowhttptest-{mode}")
    for old in glob.glob(prefix + "*"):
        os.remove(old)
    baseline_sockets = server.sockets()
    cpu0, wall0 = server.cpu_seconds(), time.monotonic()
    probe.mode = mode
    samples, peak_rss, held_until, tool_seconds = [], 0, 0.0, None
    with open(prefix + ".out", "w") as out:
        tool = subprocess.Popen(["slowhttptest"] + slowhttptest_args(mode, server.base, prefix),
                                stdout=out, stderr=subprocess.STDOUT, cwd=F.ARTIFACTS)
        # Until the tool ends and the server holds no slow connection (or long past the bound).
        while True:
            now = time.monotonic() - wall0
            sockets = server.sockets() - baseline_sockets
            samples.append((now, sockets))
            peak_rss = max(peak_rss, server.rss_kib())
            if sockets > 2:
                held_until = now
            if tool_seconds is None and tool.poll() is not None:
                tool_seconds = now
            if tool_seconds is not None and (sockets <= 2 or now > tool_seconds + bound + 30):
                break
            time.sleep(0.5)
    # When the last slow connection opened: the first sample within 3 of the peak (a probe's own
    # connection may add one later).
    peak_sockets = max(n for _, n in samples)
    opened_by = next(t for t, n in samples if n >= peak_sockets - 3)
    cpu1, wall1 = server.cpu_seconds(), time.monotonic()
    probe.mode = mode + " (after)"
    time.sleep(5)
    idle_cpu = (server.cpu_seconds() - cpu1) / 5
    with open(prefix + ".out") as f:
        output = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", f.read())
    verdict = [" ".join(line.split()) for line in output.splitlines() if "Exit status" in line or "Test ended" in line]
    said_unavailable = len(re.findall(r"service available:\s+NO", output))
    csv_path, rows = read_csv(prefix)
    # The last column holds the connection target while the tool's own probe is answered, 0 when not.
    unavailable = [r[0] for r in rows if len(r) >= 5 and int(r[4]) == 0]
    max_connected = max((int(r[3]) for r in rows if len(r) >= 5), default=0)
    return {
        "mode": mode, "bound": bound, "tool_seconds": tool_seconds, "tool_rc": tool.returncode,
        "verdict": verdict, "csv": csv_path, "csv_rows": len(rows), "unavailable_seconds": unavailable,
        "said_unavailable": said_unavailable, "max_connected": max_connected, "peak_sockets": peak_sockets,
        "peak_rss_kib": peak_rss, "held_until": held_until, "opened_by": opened_by,
        "cpu_share": (cpu1 - cpu0) / (wall1 - wall0), "idle_cpu_share": idle_cpu,
    }


def main():
    if not shutil.which("slowhttptest"):
        F.fail("slowhttptest is not installed (make soak installs it)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = 2 * CONNECTIONS + 512
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            F.fail(f"descriptor hard limit {hard} is below the {needed} this check needs")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
        F.log(f"raised the descriptor soft limit from {soft} to {needed}")
    env = {"POSTERN_RATE_LIMITS": "off", "POSTERN_AGENT_POW_DYNAMIC": "off", "POSTERN_MAX_CONNECTIONS": "4096",
           "POSTERN_MAX_CONNECTIONS_PER_CLIENT": "0"}
    results = []
    with F.Server(env=env).start() as server:
        probe = Probe(server)
        probe.thread.start()
        try:
            time.sleep(2)
            for mode, timeout in (("slow-header", HEADER_TIMEOUT), ("slow-body", HEADER_TIMEOUT),
                                  ("slow-read", WRITE_TIMEOUT)):
                # The timeout of the last connection runs from when it opened; + sweeps, sampling and slack.
                bound = timeout + 5
                F.log(f"{mode}: {CONNECTIONS} connections, all closed by the server within {bound} s "
                      "of the last one opening")
                results.append(run_mode(server, probe, mode, bound))
                if not server.alive():
                    F.fail(f"postern exited during {mode}")
        finally:
            probe.stop.set()
            probe.thread.join(timeout=10)
        server.stop()
    F.fail_if_any(judge(probe, results))
    F.log(f"every probe answered within {PROBE_BOUND_MS:.0f} ms; slow connections were reaped")


def judge(probe, results):
    """Prints what the probe and each mode measured; returns what fails the check."""
    problems = []
    F.log(f"probe bound {PROBE_BOUND_MS:.0f} ms, every {PROBE_INTERVAL * 1000:.0f} ms "
          "(new connection, GET /healthz + POST /api/v1/challenge)")
    for mode_name in ["idle"] + [r["mode"] + suffix for r in results for suffix in ("", " (after)")]:
        lat = probe.latencies.get(mode_name, [])
        fails = probe.failures.get(mode_name, [])
        print(f"  probe {mode_name:20} answers={len(lat):4} p50={F.percentile(lat, .5):6.1f} ms "
              f"p99={F.percentile(lat, .99):6.1f} ms max={max(lat, default=0):6.1f} ms failures={len(fails)}")
        for text in fails[:5]:
            problems.append(f"probe during {mode_name}: {text}")
        if mode_name != "idle" and not lat:
            problems.append(f"probe got no answer at all during {mode_name}")
    for r in results:
        print(f"  {r['mode']:11} slowhttptest ran {r['tool_seconds']:.0f} s rc={r['tool_rc']}, max connected "
              f"{r['max_connected']}; server: peak sockets +{r['peak_sockets']} at {r['opened_by']:.1f} s, held slow "
              f"connections until {r['held_until']:.1f} s (bound +{r['bound']} s), peak RSS {r['peak_rss_kib'] / 1024:.1f} MiB, "
              f"CPU {r['cpu_share']:.3f} core, {r['idle_cpu_share']:.3f} core once idle")
        print(f"      slowhttptest: {' | '.join(r['verdict']) or '(no verdict printed)'}; service unavailable in "
              f"{len(r['unavailable_seconds'])} of {r['csv_rows']} CSV rows; CSV {os.path.relpath(r['csv'] or '-')}")
        if r["csv"] is None:
            problems.append(f"{r['mode']}: slowhttptest wrote no CSV")
        if r["unavailable_seconds"] or r["said_unavailable"]:
            problems.append(f"{r['mode']}: slowhttptest saw the service unavailable at seconds "
                            f"{','.join(r['unavailable_seconds'][:10])}")
        if r["max_connected"] < CONNECTIONS * 9 // 10:
            problems.append(f"{r['mode']}: only {r['max_connected']} connections were ever open at once")
        if r["held_until"] - r["opened_by"] > r["bound"]:
            problems.append(f"{r['mode']}: the server held slow connections {r['held_until'] - r['opened_by']:.1f} s "
                            f"after the last one opened (bound {r['bound']} s)")
        if r["cpu_share"] > MAX_CPU:
            problems.append(f"{r['mode']}: server used {r['cpu_share']:.2f} of a core (bound {MAX_CPU})")
        if r["idle_cpu_share"] > 0.05:
            problems.append(f"{r['mode']}: server kept {r['idle_cpu_share']:.3f} of a core busy once idle")
    return problems


if __name__ == "__main__":
    F.run_check(main)
