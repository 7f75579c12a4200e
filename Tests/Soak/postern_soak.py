"""Shared by the Python checks in Tests/Soak (not executable, so scripts/soak does not run it).

Starts the real `postern serve` ($POSTERN_BIN) on a free loopback port with its own data directory and
reads what the kernel says about it (/proc/PID). Standard library only; scripts/bench-lib.py is loaded
as `bench` for its proof-of-work solvers and the Argon2 origin.
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.environ.get("POSTERN_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("POSTERN_BIN") or os.path.join(REPO, ".build", "release", "postern")
ARTIFACTS = os.path.join(REPO, "artifacts", "soak")

_spec = importlib.util.spec_from_file_location("bench", os.path.join(REPO, "scripts", "bench-lib.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def fail(name, message):
    print(f"{name}: FAIL: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


class Server:
    """One `postern serve` child on 127.0.0.1:<free port>; `stop()` sends SIGTERM and waits."""

    def __init__(self, extra_env=None, log_name="postern"):
        if not os.access(BIN, os.X_OK):
            raise RuntimeError(f"no executable postern at {BIN} (scripts/soak builds it)")
        self.data_dir = tempfile.mkdtemp(prefix="postern-soak-")
        env = dict(os.environ)
        env.update({
            "POSTERN_HOST": "127.0.0.1",
            "POSTERN_PORT": "0",
            "POSTERN_DATA_DIR": self.data_dir,
            "POSTERN_MIGRATIONS_DIR": os.path.join(REPO, "migrations"),
            "POSTERN_PUBLIC_URL": "http://127.0.0.1",
            "JWT_ISSUER": "http://postern.soak",
            "POSTERN_LOG_LEVEL": "warning",
        })
        env.update(extra_env or {})
        os.makedirs(ARTIFACTS, exist_ok=True)
        self.log_path = os.path.join(ARTIFACTS, f"{log_name}.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [BIN, "serve", "--config", os.path.join(REPO, "config", "postern.env")],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.pid = self.proc.pid
        line = self._first_line(timeout=60)
        match = re.search(r"listening on http://([^:]+):(\d+)", line or "")
        if not match:
            self.stop()
            raise RuntimeError(f"postern did not print its port (got {line!r}); see {self.log_path}")
        self.host, self.port = match.group(1), int(match.group(2))
        self.base = f"http://{self.host}:{self.port}"
        # Keep draining stdout so the child never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _first_line(self, timeout):
        box = []
        reader = threading.Thread(target=lambda: box.append(self.proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        return box[0] if box else None

    def _drain(self):
        for _ in self.proc.stdout:
            pass

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        subprocess.run(["rm", "-rf", self.data_dir], check=False)

    def rss_kib(self):
        return bench.rss_kib(self.pid)

    def cpu_seconds(self):
        """utime + stime of the whole process, in seconds."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def sockets(self):
        """Socket descriptors the process holds (the listener, clients and outgoing fetches)."""
        count = 0
        fd_dir = f"/proc/{self.pid}/fd"
        for name in os.listdir(fd_dir):
            try:
                if os.readlink(os.path.join(fd_dir, name)).startswith("socket:"):
                    count += 1
            except OSError:
                pass
        return count


def percentile(values, fraction):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def wait_until(predicate, timeout, step=0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
