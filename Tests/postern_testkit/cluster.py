"""A local multi-instance Postern: PostgreSQL, N `postern serve` on one database, HAProxy in front, all on
loopback and nothing outside DIR.

  scripts/cluster start DIR [N]            PostgreSQL in DIR/pg (scripts/pg-temp), N instances (default 2) on free
                                           loopback ports, each with DIR/instance-<I> (data directory, log, pid file),
                                           HAProxy on one free
                                           port; prints the address (http://127.0.0.1:PORT) once every instance is
                                           ready and in rotation, and writes DIR/cluster.env (below)
  scripts/cluster stop DIR                 stops HAProxy, the instances (SIGTERM) and PostgreSQL, and removes DIR
  scripts/cluster restart-instance DIR I   a drained restart of instance I: HAProxy stops giving it requests
                                           (`set server ... state drain`), once it holds none it gets SIGTERM, it is
                                           started again, and once its /readyz answers HAProxy puts it back
                                           (`state ready`) and reports it UP. A dead instance (kill -9) is just started.
  scripts/cluster restart-instance DIR I [--sigterm] [--binary PATH]
                                           the same restart as an operator's `systemctl restart` or `docker compose
                                           restart` makes it, HAProxy's runtime API untouched: SIGTERM alone, the
                                           instance's own drain (/readyz fails for POSTERN_DRAIN_SECONDS, SMTP answers
                                           421) taking it out of HAProxy before it closes; started again once it exited.
                                           --binary: started again from another `postern` (a rolling upgrade: the
                                           instance's binary is INSTANCE_<I>_BIN in cluster.env from then on)
  scripts/cluster postern DIR ARGS...      runs `postern ARGS` with the instances' settings (their database and key
                                           secret) and instance 1's data directory: `keys rotate`, `pro create ...`
  scripts/cluster status DIR               each instance's pid and HAProxy's view of it

Every instance gets the settings of deploy/docker-compose.yml (its `x-postern` environment, `${VAR:-default}`
expanded from the environment `start` runs in), so that the cluster is the compose file's shape on loopback: SMTP,
the sandbox, IMAP, IMAPS, POP3, POP3S, submission and submissions on, behind HAProxy with the PROXY protocol, POSTERN_DRAIN_SECONDS, the key
reload and promotion.
Over those, every POSTERN_* and JWT_* variable of the environment `start` runs in (POSTERN_RATE_LIMITS, ...); over
both, what loopback needs: the same POSTERN_DATABASE_URL, POSTERN_KEY_SECRET (random hex made once into
DIR/key-secret), POSTERN_PUBLIC_URL and JWT_ISSUER (the balancer's URL), POSTERN_TRUSTED_PROXIES=127.0.0.1/32 and
POSTERN_INSTANCES=N. All of it is kept in DIR/instances.env, which restarts use too; each instance's own ports
(HTTP, SMTP, the sandbox, IMAP, IMAPS, POP3, POP3S, submission, submissions) are chosen at start and kept in cluster.env.
POSTERN_BIN names the binary (default: this checkout's .build/release/postern; `make cluster` builds it).
CLUSTER_DATABASE=sqlite (with N=1) serves one instance on a SQLite file in DIR/sqlite instead, behind the same
balancer: the embedded default, for comparison (scripts/bench-cluster). PG_DIR is then empty.
CLUSTER_DATABASE=pg-ha serves them on a primary and a synchronous standby (scripts/pg-ha in DIR/pg-ha, the multi-host
URL), pg-ha-async on the same pair replicating asynchronously: the failover suite (Tests/Cluster/failover_tests.py).
PG_DIR is then DIR/pg-ha, the directory scripts/pg-ha kill-primary, promote, freeze-standby ... take.
CLUSTER_DATABASE=patroni serves them on three PostgreSQL nodes under Patroni (scripts/patroni in DIR/patroni): instance
1 through HAProxy on the leader's GET /primary, instance 2 and beyond through the multi-host URL with
target_session_attrs=read-write (each instance's own URL is in DIR/instance-<I>/database-url, which restarts read),
both with POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY=on: the Patroni suite (Tests/Cluster/patroni_tests.py). PG_DIR
is then DIR/patroni, the directory scripts/patroni switchover, kill-postgres, kill-patroni ... take.

HAProxy's configuration is deploy/haproxy.cfg (the one docker compose uses) rendered for loopback into
DIR/haproxy.cfg: HTTP, SMTP, the sandbox, IMAP, IMAPS, POP3, POP3S, submission and submissions each on a free port; for HTTP health checks
on GET /readyz, round robin, X-Forwarded-For from HAProxy only, a request retried on another instance only when its
connection failed before it was sent, and, when no instance is ready (PostgreSQL down), every live one answering
instead of HAProxy. Its admin socket is DIR/haproxy.sock, its log DIR/haproxy.log.

DIR/cluster.env, KEY=VALUE lines a shell can source: CLUSTER_URL, CLUSTER_SMTP_PORT, CLUSTER_SANDBOX_PORT,
CLUSTER_IMAP_PORT, CLUSTER_IMAPS_PORT, CLUSTER_POP3_PORT, CLUSTER_POP3S_PORT, CLUSTER_SUBMISSION_PORT and
CLUSTER_SUBMISSIONS_PORT (HAProxy's mail ports),
CLUSTER_INSTANCES, POSTERN_BIN, POSTERN_DATABASE_URL, PG_DIR, HAPROXY_PORT, HAPROXY_PID, HAPROXY_SOCKET, HAPROXY_CONFIG,
HAPROXY_LOG, and for each instance I: INSTANCE_<I>_PORT, _SMTP_PORT, _SANDBOX_PORT, _IMAP_PORT, _IMAPS_PORT,
_POP3_PORT, _POP3S_PORT, _SUBMISSION_PORT, _SUBMISSIONS_PORT, _PID, _URL, _DATA_DIR, _LOG, _BIN (the binary it runs) and _SERVER (its HAProxy server,
postern/postern<I>).

Installs Debian's postgresql and haproxy when missing (scripts/bootstrap). As root, PostgreSQL runs as the
`postgres` user (scripts/pg-temp), so DIR is made traversable (0711) for it, and must be reachable by it.
"""
import contextlib
import csv
import fcntl
import glob
import http.client
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

from .ports import free_ports

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(REPO, "scripts")  # pg-temp and bootstrap, which it runs
TEMPLATE = os.path.join(REPO, "deploy", "haproxy.cfg")
COMPOSE = os.path.join(REPO, "deploy", "docker-compose.yml")
# The template's ports, by service: frontends bind them, servers listen on them.
HTTP, SMTP, SANDBOX, IMAP, IMAPS, POP3, POP3S, SUBMISSION, SUBMISSIONS = 8080, 2525, 2587, 1143, 1993, 1110, 1995, 1587, 1465
# Each service's instance variable (its port on an instance) and its name in cluster.env: CLUSTER_<NAME>_PORT
# (HAProxy's port; HTTP's is CLUSTER_URL) and INSTANCE_<I>_<NAME>_PORT (HTTP's: INSTANCE_<I>_PORT).
SERVICE_NAMES = {HTTP: ("POSTERN_PORT", None), SMTP: ("POSTERN_SMTP_PORT", "SMTP"),
                 SANDBOX: ("POSTERN_SANDBOX_SMTP_PORT", "SANDBOX"), IMAP: ("POSTERN_IMAP_PORT", "IMAP"),
                 IMAPS: ("POSTERN_IMAPS_PORT", "IMAPS"), POP3: ("POSTERN_POP3_PORT", "POP3"),
                 POP3S: ("POSTERN_POP3S_PORT", "POP3S"), SUBMISSION: ("POSTERN_SUBMISSION_PORT", "SUBMISSION"),
                 SUBMISSIONS: ("POSTERN_SUBMISSIONS_PORT", "SUBMISSIONS")}
SERVICES = tuple(SERVICE_NAMES)
# The mail backends of deploy/haproxy.cfg, each with its fallback `<name>_live`.
MAIL_BACKENDS = ("smtp", "sandbox", "imap", "imaps", "pop3", "pop3s", "submission", "submissions")
MARKER = ".postern-cluster"  # in every DIR `start` made: `stop` removes no other directory
BACKEND, FALLBACK = "postern", "postern_live"  # the backends of deploy/haproxy.cfg
# Set by this script for every instance; the caller's values of these are not passed through.
CONTROLLED = {"POSTERN_HOST", "POSTERN_DATA_DIR", "POSTERN_DATABASE_URL", "POSTERN_PUBLIC_URL", "JWT_ISSUER",
              "POSTERN_TRUSTED_PROXIES", "POSTERN_INSTANCES", "POSTERN_KEY_SECRET", "POSTERN_BIN"} | {
              variable for variable, _ in SERVICE_NAMES.values()}


def say(message):
    print(f"cluster: {message}", file=sys.stderr, flush=True)


def die(message, code=1):
    say(message)
    sys.exit(code)


class Failed(Exception):
    pass


# --- Processes -------------------------------------------------------------------------------------------------

def running(pid, exe=None):
    """Whether `pid` is a live process (a zombie is not), and, with `exe`, one running that executable."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                return False
        if exe is not None and os.path.realpath(os.readlink(f"/proc/{pid}/exe")) != os.path.realpath(exe):
            return False
    except (OSError, IndexError, ValueError):
        return False
    return True


def end(pid, exe, grace=20.0):
    """SIGTERM to `pid` (when it still runs `exe`), SIGKILL after `grace` s; returns once it is gone."""
    if not running(pid, exe):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if running(pid, exe):
        say(f"pid {pid} still runs {grace:.0f} s after SIGTERM: SIGKILL")
        os.kill(pid, signal.SIGKILL)
        while running(pid):
            time.sleep(0.05)


def spawn(argv, log_path, env, cwd):
    """Starts a process that outlives this script: its own session, stdin /dev/null, output appended to `log_path`,
    no descriptor of ours (a caller reading our output to its end must not wait for it)."""
    with open(log_path, "ab") as log:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                                   cwd=cwd, start_new_session=True, close_fds=True)
    return process.pid


def http_status(url, timeout=2.0):
    """Status of GET `url`, or None when nothing answers."""
    rest = url.split("://", 1)[1]
    hostport, _, path = rest.partition("/")
    host, _, port = hostport.partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("GET", "/" + path)
        response = conn.getresponse()
        response.read()
        return response.status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def tail(path, size=3000):
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - size))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


# --- The cluster's files -----------------------------------------------------------------------------------------

class Cluster:
    def __init__(self, directory):
        self.dir = os.path.abspath(directory)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def instance_dir(self, i):
        return self.path(f"instance-{i}")

    @property
    def socket(self):
        return self.path("haproxy.sock")

    # cluster.env: what consumers read. The pid files (haproxy.pid, instance-<I>/pid) are what `stop` trusts, so
    # that a cluster whose start failed half-way is stopped too.
    def read_env(self):
        values = {}
        with contextlib.suppress(FileNotFoundError), open(self.path("cluster.env")) as f:
            for line in f:
                key, sep, value = line.rstrip("\n").partition("=")
                if sep:
                    values[key] = value
        return values

    def write_env(self, values):
        temporary = self.path("cluster.env.tmp")
        with open(temporary, "w") as f:
            for key, value in values.items():
                f.write(f"{key}={value}\n")
        os.replace(temporary, self.path("cluster.env"))

    def read_pid(self, path):
        with contextlib.suppress(OSError, ValueError), open(path) as f:
            return int(f.read().strip())
        return None

    def write_pid(self, path, pid):
        with open(path, "w") as f:
            f.write(f"{pid}\n")

    def instance_settings(self):
        """DIR/instances.env: the variables every instance gets (shell-quoted values)."""
        settings = {}
        with open(self.path("instances.env")) as f:
            for line in f:
                for word in shlex.split(line, comments=True):
                    key, _, value = word.partition("=")
                    settings[key] = value
        return settings

    @contextlib.contextmanager
    def locked(self):
        """One change at a time (two restart-instance runs must not write cluster.env over each other)."""
        with open(self.path(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    # --- Instances ---

    def environment(self, extra=None):
        """This process's environment without POSTERN_*/JWT_*, plus instances.env, plus `extra`."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("POSTERN_", "JWT_"))}
        env.update(self.instance_settings())
        env.update(extra or {})
        return env

    def launch(self, i, binary, ports):
        """Instance `i` on `ports` ({service: port} for every one of SERVICES)."""
        data = self.instance_dir(i)
        os.makedirs(data, exist_ok=True)
        env = self.environment({variable: str(ports[service]) for service, (variable, _) in SERVICE_NAMES.items()}
                               | {"POSTERN_DATA_DIR": os.path.join(data, "data")})
        with contextlib.suppress(FileNotFoundError), open(os.path.join(data, "database-url")) as f:
            env["POSTERN_DATABASE_URL"] = f.read().strip()  # this instance's own route to the database
        pid = spawn([binary, "serve"], os.path.join(data, "postern.log"), env, cwd=data)
        self.write_pid(os.path.join(data, "pid"), pid)
        return pid

    def wait_ready(self, i, pid, port, binary, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if http_status(f"http://127.0.0.1:{port}/readyz") == 200:
                return
            if not running(pid, binary):
                raise Failed(f"instance {i} exited before it was ready; its log ({self.instance_dir(i)}/postern.log) "
                             f"ends:\n{tail(os.path.join(self.instance_dir(i), 'postern.log'))}")
            time.sleep(0.05)
        raise Failed(f"instance {i} (127.0.0.1:{port}) not ready within {timeout:.0f} s")

    # --- HAProxy's runtime API ---

    def haproxy(self, command):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(self.socket)
            s.sendall(command.encode() + b"\n")
            chunks = []
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")

    def stats(self):
        """{(backend, server): row} from `show stat` (status, scur, ...)."""
        text = self.haproxy("show stat").lstrip("# ")
        return {(row["pxname"], row["svname"]): row for row in csv.DictReader(text.splitlines()) if row.get("pxname")}

    def set_state(self, i, state):
        """HTTP's backends and, when the instances serve mail, the mail ones: a draining instance gets no new SMTP
        session either (those it holds get 421 when it stops, and their clients retry through the balancer)."""
        backends = [b for b in (BACKEND, FALLBACK) + tuple(m + s for m in MAIL_BACKENDS for s in ("", "_live"))
                    if b in {k[0] for k in self.stats()}]
        for backend in backends:
            answer = self.haproxy(f"set server {backend}/postern{i} state {state}").strip()
            if answer:
                raise Failed(f"HAProxy: set server {backend}/postern{i} state {state}: {answer}")

    def wait_servers(self, servers, predicate, what, timeout):
        deadline = time.monotonic() + timeout
        while True:
            rows = self.stats()
            missing = [s for s in servers if not predicate(rows.get(s, {}))]
            if not missing:
                return
            if time.monotonic() > deadline:
                states = ", ".join(f"{b}/{s}: {rows.get((b, s), {}).get('status')} scur="
                                   f"{rows.get((b, s), {}).get('scur')}" for b, s in missing)
                raise Failed(f"HAProxy: not {what} within {timeout:.0f} s: {states}")
            time.sleep(0.05)


# --- Commands ------------------------------------------------------------------------------------------------------

def binary_path():
    binary = os.environ.get("POSTERN_BIN") or os.path.join(REPO, ".build", "release", "postern")
    binary = os.path.abspath(binary)
    if not os.access(binary, os.X_OK):
        die(f"no executable postern at {binary}: build it (swift build -c release --product postern; make cluster "
            f"does) or set POSTERN_BIN")
    return binary


def ensure_packages():
    if shutil.which("haproxy") is None or not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        subprocess.run([os.path.join(HERE, "bootstrap"), "haproxy", "postgresql"], check=True, stdout=sys.stderr)


def compose_settings(environ=None):
    """The `x-postern` environment of deploy/docker-compose.yml, `${VAR}`, `${VAR:-default}` and `${VAR:?message}`
    expanded from `environ` (a `:?` variable that is unset leaves its key out: it is one this script controls)."""
    environ = os.environ if environ is None else environ
    settings, in_anchor, in_environment = {}, False, False
    with open(COMPOSE) as f:
        for line in f.read().splitlines():
            if re.match(r"^\S", line):
                in_anchor, in_environment = line.startswith("x-postern:"), False
            elif in_anchor and re.match(r"^  \S", line):
                in_environment = line.strip() == "environment:"
            elif in_anchor and in_environment and re.match(r"^    [A-Z][A-Z0-9_]*:", line):
                key, _, value = line.strip().partition(":")
                value = re.sub(r"\s+#.*$", "", value.strip())
                if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                    value = value[1:-1]
                missing = []

                def expand(match):
                    name, operator, word = match.group(1), match.group(2) or "", match.group(3) or ""
                    if environ.get(name):
                        return environ[name]
                    if operator == ":-":
                        return word
                    if operator == ":?":
                        missing.append(name)
                    return ""
                value = re.sub(r"\$\{(\w+)(?:(:[-?])([^}]*))?\}", expand, value)
                if not missing:
                    settings[key] = value
    if not settings:
        raise Failed(f"{COMPOSE} has no x-postern environment this script can read")
    return settings


def instance_port_key(i, service):
    """The cluster.env key of instance `i`'s port for `service`: INSTANCE_<I>_<NAME>_PORT, HTTP's INSTANCE_<I>_PORT."""
    name = SERVICE_NAMES[service][1]
    return f"INSTANCE_{i}_{name}_PORT" if name else f"INSTANCE_{i}_PORT"


def render_haproxy(ports, socket_path, server_ports):
    """deploy/haproxy.cfg for loopback: each frontend's bind on `ports[service]`, the socket, one server line per
    instance at `server_ports[service][i]` with the same options."""
    counts = {"bind": set(), "socket": 0, "servers": 0}
    out = [f"# Rendered by scripts/cluster from {TEMPLATE} for loopback: its addresses are IPs, so Docker's resolvers",
           "# section is left out."]
    in_block = in_resolvers = False
    with open(TEMPLATE) as f:
        lines = f.read().splitlines()
    for line in lines:
        if re.match(r"^resolvers\s", line):
            in_resolvers = True
            continue
        if in_resolvers:
            if not line.strip() or line[0].isspace():
                continue
            in_resolvers = False
        line = re.sub(r"\s+resolvers\s+\S+", "", line)
        server = re.match(r"^(\s*)server\s+postern\d+\s+[^\s:]+:(\d+)(.*)$", line)
        if server and int(server.group(2)) in server_ports:
            if not in_block:
                counts["servers"] += 1
                # A mail backend's check asks the instance's /readyz on its HTTP port (`check port 8080`).
                out += [f"{server.group(1)}server postern{i} 127.0.0.1:{p}"
                        + re.sub(rf"\bport {HTTP}\b", f"port {server_ports[HTTP][i - 1]}", server.group(3))
                        for i, p in enumerate(server_ports[int(server.group(2))], 1)]
            in_block = True
            continue
        in_block = False
        bind = re.match(r"^(\s*)bind\s+:(\d+)\b(.*)$", line)
        sock = re.match(r"^(\s*)stats socket\s+\S+(.*)$", line)
        if bind and int(bind.group(2)) in ports:
            counts["bind"].add(int(bind.group(2)))
            line = f"{bind.group(1)}bind 127.0.0.1:{ports[int(bind.group(2))]}{bind.group(3)}"
        elif sock:
            counts["socket"] += 1
            line = f"{sock.group(1)}stats socket {socket_path}{sock.group(2)}"
        out.append(line)
    if counts != {"bind": set(SERVICES), "socket": 1, "servers": 2 + 2 * len(MAIL_BACKENDS)}:
        raise Failed(f"{TEMPLATE} no longer has the shape this script renders (a `bind :<port>` for each of "
                     f"{', '.join(map(str, SERVICES))}, one `stats socket`, a block of `server postern<N> host:port "
                     f"...` lines in each of {2 + 2 * len(MAIL_BACKENDS)} backends): found {counts}")
    return "\n".join(out) + "\n"


def start(cluster, count):
    if os.path.exists(cluster.path("cluster.env")):
        url = cluster.read_env().get("CLUSTER_URL", "?")
        die(f"{cluster.dir} holds a cluster ({url}): scripts/cluster stop {cluster.dir} first")
    if len(cluster.socket) > 100:
        die(f"{cluster.dir} is too long a path for HAProxy's unix socket; choose a shorter DIR")
    if os.path.isdir(cluster.dir) and os.listdir(cluster.dir):
        die(f"{cluster.dir} is not empty: give a new or empty directory (`stop` removes it whole)")
    binary = binary_path()
    ensure_packages()
    os.makedirs(cluster.dir, exist_ok=True)
    os.chmod(cluster.dir, 0o711 if os.geteuid() == 0 else 0o700)
    open(cluster.path(MARKER), "w").close()
    if os.geteuid() == 0 and subprocess.run(["runuser", "-u", "postgres", "--", "test", "-x", cluster.dir]).returncode:
        stop(cluster)
        die(f"the postgres user cannot reach {cluster.dir} (PostgreSQL runs as it when root): choose a DIR whose "
            f"parent directories it may traverse")
    try:
        started = time.monotonic()
        values = start_everything(cluster, binary, count)
        say(f"{count} instance(s) behind {values['CLUSTER_URL']} in {time.monotonic() - started:.1f} s; "
            f"scripts/cluster stop {cluster.dir} ends it")
        print(values["CLUSTER_URL"], flush=True)
    except (Failed, subprocess.CalledProcessError) as error:
        say(f"start failed: {error}")
        if os.environ.get("CLUSTER_KEEP_FAILED"):
            say(f"left as it is for a look (CLUSTER_KEEP_FAILED): scripts/cluster stop {cluster.dir} removes it")
            sys.exit(1)
        stop(cluster)
        sys.exit(1)
    except BaseException:
        stop(cluster)
        raise


def start_everything(cluster, binary, count):
    secret_path = cluster.path("key-secret")
    if not os.path.exists(secret_path):
        with open(os.open(secret_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
            f.write(secrets.token_hex(32) + "\n")
    with open(secret_path) as f:
        key_secret = f.read().strip()

    database = os.environ.get("CLUSTER_DATABASE", "postgres")
    required = {}
    if database == "sqlite":
        # The embedded default behind the same balancer, for comparison (make bench-cluster): one instance, its
        # SQLite file in DIR/sqlite, its keys in its data directory.
        if count != 1:
            raise Failed("CLUSTER_DATABASE=sqlite serves one instance: SQLite is not shared between instances")
        pg_dir = ""
        database_url = "sqlite://" + cluster.path("sqlite", "postern.sqlite3")
    elif database in ("pg-ha", "pg-ha-async"):
        pg_dir = cluster.path("pg-ha")
        database_url = subprocess.run([os.path.join(HERE, "pg-ha"), "start", pg_dir]
                                      + (["async"] if database == "pg-ha-async" else []), check=True, text=True,
                                      stdout=subprocess.PIPE).stdout.strip().splitlines()[-1]
    elif database == "patroni":
        pg_dir = cluster.path("patroni")
        database_url = subprocess.run([os.path.join(HERE, "patroni"), "start", pg_dir], check=True, text=True,
                                      stdout=subprocess.PIPE).stdout.strip().splitlines()[-1]
        with open(os.path.join(pg_dir, "patroni.env")) as f:
            multihost = next(line.split("=", 1)[1].strip() for line in f if line.startswith("PATRONI_MULTIHOST_URL="))
        for i in range(2, count + 1):
            os.makedirs(cluster.instance_dir(i), exist_ok=True)
            with open(os.path.join(cluster.instance_dir(i), "database-url"), "w") as f:
                f.write(multihost + "\n")
        required = {"POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY": "on"}  # Patroni #2841: docs/postgres.md
    else:
        pg_dir = cluster.path("pg")
        database_url = subprocess.run([os.path.join(HERE, "pg-temp"), "start", pg_dir], check=True, text=True,
                                      stdout=subprocess.PIPE).stdout.strip().splitlines()[-1]

    free = free_ports(len(SERVICES) * (count + 1))
    balancer = dict(zip(SERVICES, free))
    instance_ports = [dict(zip(SERVICES, free[k:k + len(SERVICES)])) for k in range(len(SERVICES), len(free),
                                                                                    len(SERVICES))]
    haproxy_port = balancer[HTTP]
    public_url = f"http://127.0.0.1:{haproxy_port}"
    settings = {k: v for k, v in compose_settings().items() if k not in CONTROLLED}
    settings.update({k: v for k, v in os.environ.items() if k.startswith(("POSTERN_", "JWT_")) and k not in CONTROLLED})
    settings.update({
        "POSTERN_HOST": "127.0.0.1",
        "POSTERN_DATABASE_URL": database_url,
        "POSTERN_KEY_SECRET": key_secret,
        "POSTERN_PUBLIC_URL": public_url,
        "JWT_ISSUER": public_url,
        "POSTERN_TRUSTED_PROXIES": "127.0.0.1/32",
        "POSTERN_INSTANCES": str(count),
    })
    settings.update(required)
    with open(os.open(cluster.path("instances.env"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write("# What every instance of this cluster gets (scripts/cluster start wrote it; restarts read it).\n")
        for key in sorted(settings):
            f.write(f"{key}={shlex.quote(settings[key])}\n")

    # All at once: they migrate the empty database and make its signing keys together, as a real deployment's would.
    pids = [cluster.launch(i, binary, ports) for i, ports in enumerate(instance_ports, 1)]
    for i, (pid, ports) in enumerate(zip(pids, instance_ports), 1):
        cluster.wait_ready(i, pid, ports[HTTP], binary)

    config = cluster.path("haproxy.cfg")
    with open(config, "w") as f:
        f.write(render_haproxy(balancer, cluster.socket,
                               {service: [ports[service] for ports in instance_ports] for service in SERVICES}))
    check = subprocess.run(["haproxy", "-c", "-q", "-f", config], capture_output=True, text=True)
    if check.returncode != 0:
        raise Failed(f"haproxy -c -f {config}:\n{check.stdout}{check.stderr}")
    haproxy_bin = shutil.which("haproxy")
    haproxy_pid = spawn([haproxy_bin, "-db", "-f", config], cluster.path("haproxy.log"), os.environ.copy(), cluster.dir)
    cluster.write_pid(cluster.path("haproxy.pid"), haproxy_pid)
    deadline = time.monotonic() + 10
    while not os.path.exists(cluster.socket):
        if not running(haproxy_pid) or time.monotonic() > deadline:
            raise Failed(f"HAProxy did not start; its log ends:\n{tail(cluster.path('haproxy.log'))}")
        time.sleep(0.02)
    mail = settings.get("POSTERN_SMTP", "on") != "off"
    servers = [(backend, f"postern{i}") for i in range(1, count + 1)
               for backend in ((BACKEND,) + MAIL_BACKENDS if mail else (BACKEND,))]
    cluster.wait_servers(servers, lambda row: row.get("status") == "UP", "UP", timeout=30)

    values = {
        "CLUSTER_DIR": cluster.dir,
        "CLUSTER_URL": public_url,
        **{f"CLUSTER_{name}_PORT": str(balancer[service]) for service, (_, name) in SERVICE_NAMES.items() if name},
        "CLUSTER_INSTANCES": str(count),
        "POSTERN_BIN": binary,
        "POSTERN_DATABASE_URL": database_url,
        "PG_DIR": pg_dir,
        "HAPROXY_PORT": str(haproxy_port),
        "HAPROXY_PID": str(haproxy_pid),
        "HAPROXY_SOCKET": cluster.socket,
        "HAPROXY_CONFIG": config,
        "HAPROXY_LOG": cluster.path("haproxy.log"),
    }
    for i, (pid, ports) in enumerate(zip(pids, instance_ports), 1):
        values.update({
            **{instance_port_key(i, service): str(ports[service]) for service in SERVICES},
            f"INSTANCE_{i}_PID": str(pid),
            f"INSTANCE_{i}_URL": f"http://127.0.0.1:{ports[HTTP]}",
            f"INSTANCE_{i}_DATA_DIR": os.path.join(cluster.instance_dir(i), "data"),
            f"INSTANCE_{i}_LOG": os.path.join(cluster.instance_dir(i), "postern.log"),
            f"INSTANCE_{i}_BIN": binary,
            f"INSTANCE_{i}_SERVER": f"{BACKEND}/postern{i}",
        })
    cluster.write_env(values)
    return values


def stop(cluster):
    """Everything this cluster started, then DIR. Quiet when there is nothing."""
    if not os.path.isdir(cluster.dir):
        return
    if not os.path.exists(cluster.path(MARKER)):
        die(f"{cluster.dir} is not a directory scripts/cluster started a cluster in (no {MARKER}): left alone")
    values = cluster.read_env()
    binary = values.get("POSTERN_BIN") or os.environ.get("POSTERN_BIN") or os.path.join(REPO, ".build", "release",
                                                                                         "postern")
    haproxy_pid = cluster.read_pid(cluster.path("haproxy.pid"))
    if haproxy_pid:
        end(haproxy_pid, shutil.which("haproxy") or "/usr/sbin/haproxy", grace=5)
    for pid_file in sorted(glob.glob(cluster.path("instance-*", "pid"))):
        pid = cluster.read_pid(pid_file)
        i = os.path.basename(os.path.dirname(pid_file)).rsplit("-", 1)[-1]
        if pid:
            end(pid, os.path.abspath(values.get(f"INSTANCE_{i}_BIN") or binary))
    if os.path.isdir(cluster.path("pg")):
        subprocess.run([os.path.join(HERE, "pg-temp"), "destroy", cluster.path("pg")], check=False,
                       stdout=subprocess.DEVNULL)
    if os.path.isdir(cluster.path("pg-ha")):
        subprocess.run([os.path.join(HERE, "pg-ha"), "stop", cluster.path("pg-ha")], check=False,
                       stdout=subprocess.DEVNULL)
    if os.path.isdir(cluster.path("patroni")):
        subprocess.run([os.path.join(HERE, "patroni"), "stop", cluster.path("patroni")], check=False,
                       stdout=subprocess.DEVNULL)
    shutil.rmtree(cluster.dir, ignore_errors=True)


def restart_instance(cluster, i, sigterm=False, new_binary=None):
    values = cluster.read_env()
    if not values:
        die(f"no cluster in {cluster.dir}")
    if f"INSTANCE_{i}_PORT" not in values:
        die(f"no instance {i} in {cluster.dir} (it has {values.get('CLUSTER_INSTANCES')})")
    binary = values.get(f"INSTANCE_{i}_BIN") or values["POSTERN_BIN"]
    ports = {service: int(values[instance_port_key(i, service)]) for service in SERVICES}
    port = ports[HTTP]
    servers = [(BACKEND, f"postern{i}"), (FALLBACK, f"postern{i}")]
    with cluster.locked():
        started = time.monotonic()
        pid = cluster.read_pid(os.path.join(cluster.instance_dir(i), "pid"))
        if sigterm:
            # The instance's own drain takes it out of HAProxy (its /readyz and SMTP checks fail) before it closes.
            if pid and running(pid, binary):
                end(pid, binary, grace=60)
        else:
            cluster.set_state(i, "drain")
            if pid and running(pid, binary):
                cluster.wait_servers(servers, lambda row: row.get("scur") == "0", "without sessions", timeout=60)
                end(pid, binary, grace=30)
        binary = os.path.abspath(new_binary) if new_binary else binary
        pid = cluster.launch(i, binary, ports)
        cluster.wait_ready(i, pid, port, binary)
        if not sigterm:
            cluster.set_state(i, "ready")
        cluster.wait_servers(servers[:1], lambda row: row.get("status") == "UP", "UP", timeout=30)
        values = cluster.read_env()
        values[f"INSTANCE_{i}_PID"] = str(pid)
        values[f"INSTANCE_{i}_BIN"] = binary
        cluster.write_env(values)
        say(f"instance {i} restarted (pid {pid}) in {time.monotonic() - started:.1f} s")


def run_postern(cluster, args):
    values = cluster.read_env()
    if not values:
        die(f"no cluster in {cluster.dir}")
    env = cluster.environment({"POSTERN_DATA_DIR": values["INSTANCE_1_DATA_DIR"]})
    os.execve(values["POSTERN_BIN"], [values["POSTERN_BIN"], *args], env)


def status(cluster):
    values = cluster.read_env()
    if not values:
        die(f"no cluster in {cluster.dir}")
    print(f"{values['CLUSTER_URL']}  HAProxy pid {values['HAPROXY_PID']}"
          f" ({'running' if running(int(values['HAPROXY_PID'])) else 'not running'})")
    try:
        rows = cluster.stats()
    except OSError as error:
        rows = {}
        print(f"HAProxy's socket does not answer: {error}")
    for i in range(1, int(values["CLUSTER_INSTANCES"]) + 1):
        pid = int(values[f"INSTANCE_{i}_PID"])
        row = rows.get((BACKEND, f"postern{i}"), {})
        print(f"instance {i}  {values[f'INSTANCE_{i}_URL']}  pid {pid} "
              f"({'running' if running(pid, values.get(f'INSTANCE_{i}_BIN') or values['POSTERN_BIN']) else 'not running'})  "
              f"HAProxy: {row.get('status', '?')} sessions {row.get('scur', '?')}")


def main(argv):
    usage = ("usage: scripts/cluster start DIR [N] | stop DIR | restart-instance DIR I [--sigterm] [--binary PATH] | "
             "postern DIR ARGS... | "
             "status DIR")
    if len(argv) < 2:
        die(usage, 2)
    command, cluster = argv[0], Cluster(argv[1])
    try:
        if command == "start" and len(argv) in (2, 3):
            count = int(argv[2]) if len(argv) == 3 else 2
            if count < 1:
                die("N must be at least 1", 2)
            start(cluster, count)
        elif command == "stop" and len(argv) == 2:
            stop(cluster)
        elif command == "restart-instance" and len(argv) >= 3:
            options, new_binary = argv[3:], None
            if "--binary" in options:
                at = options.index("--binary")
                if at + 1 >= len(options) or not os.access(options[at + 1], os.X_OK):
                    die("--binary needs the path of an executable postern", 2)
                new_binary = options[at + 1]
                del options[at:at + 2]
            if options not in ([], ["--sigterm"]):
                die(usage, 2)
            restart_instance(cluster, int(argv[2]), sigterm=options == ["--sigterm"], new_binary=new_binary)
        elif command == "postern" and len(argv) >= 3:
            run_postern(cluster, argv[2:])
        elif command == "status" and len(argv) == 2:
            status(cluster)
        else:
            die(usage, 2)
    except Failed as error:
        die(str(error))
