#!/usr/bin/env python3
"""Issue 81, item 9: deploy/patroni's doors are locked. Against a cluster scripts/patroni started (the shipped
patroni.yml, its pg_hba's addresses made loopback's), each door is knocked on without its credential, and with the
credential as a control (so that a refusal is the lock's, not a closed port's):

  Patroni's REST API   PATCH /config (synchronous_mode and synchronous_mode_strict off) and POST /restart on every
                       node, without credentials and with a wrong password: 401, and the configuration unchanged;
                       GET /primary, HAProxy's check, still answered without credentials; the same PATCH with
                       restapi.authentication's password (but synchronous_mode_strict left on) accepted
  etcd                 a put and a read of Patroni's keys (/service/postern/) without a token: refused, and the put not
                       written; a wrong password refused; the patroni user's token reads the leader key
  PostgreSQL           Postern's role (the URL Postern is given) is no superuser: ALTER SYSTEM and CREATE ROLE refused;
                       no password, a wrong one, the superuser with Postern's password, and Postern's role on another
                       database: each refused; the superuser with its own password from the node: let in

Patroni_tests.py (the Patroni stage of make test) runs `check` on its cluster after its events. Alone, on a cluster
of its own (about a minute and a half; no Postern binary needed):

    Tests/Cluster/patroni_locked.py

Standard library only.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PATRONI = os.path.join(REPO, "scripts", "patroni")
NODES = ("pg1", "pg2", "pg3")
# What the review did without a credential: the guarantee docs/postgres.md builds on, turned off.
UNSAFE_CONFIG = {"synchronous_mode": False, "synchronous_mode_strict": False}


def read_env(path):
    """NAME=value lines of `path`; {} when it does not exist (a cluster started before the secrets were)."""
    try:
        with open(path) as f:
            return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line and not line.startswith("#"))
    except FileNotFoundError:
        return {}


def http(method, url, body=None, auth=None, headers=None):
    """(status, body bytes) of one request; status 0 when nothing answered."""
    headers = dict(headers or {})
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except OSError:
        return 0, b""


def psql(url, sql):
    """(succeeded, output) of `sql` on `url`, with no password but the URL's: no ~/.pgpass, no PG* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update(PGPASSFILE="/nonexistent/pgpass", PGCONNECT_TIMEOUT="10")  # a missing file is read as an empty one
    binary = shutil.which("psql") or sorted(
        os.path.join("/usr/lib/postgresql", v, "bin", "psql") for v in os.listdir("/usr/lib/postgresql"))[-1]
    result = subprocess.run([binary, "-w", "-X", "-qtA", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                            capture_output=True, text=True, timeout=60, env=env)
    return result.returncode == 0, (result.stdout + result.stderr).strip()


def check(pg_dir):
    """Knocks on every door of the cluster scripts/patroni started in `pg_dir`; returns a summary, raises
    AssertionError naming every door that let in what it should have refused (or a control that failed)."""
    env, secret = read_env(os.path.join(pg_dir, "patroni.env")), read_env(os.path.join(pg_dir, "secrets.env"))
    problems, seen = [], []

    def door(ok, what):
        (seen if ok else problems).append(what)

    # Patroni's REST API. Username as patroni.yml ships it (restapi.authentication.username).
    rest = {node: f"http://127.0.0.1:{env.get('REST_' + node)}" for node in NODES}
    deadline, leader = time.monotonic() + 120, None
    while leader is None and time.monotonic() < deadline:
        leader = next((n for n in NODES if http("GET", rest[n] + "/primary")[0] == 200), None)
        time.sleep(0 if leader else 0.5)
    door(leader is not None, "GET /primary without credentials answers 200 on the leader (HAProxy's check)")
    for node in NODES:
        for auth, how in ((None, "without credentials"), (("patroni", "wrong-" + os.urandom(4).hex()),
                                                         "with a wrong password")):
            status, _ = http("PATCH", rest[node] + "/config", UNSAFE_CONFIG, auth=auth)
            door(status == 401, f"{node}: PATCH /config {how} answered {status} (401 expected)")
        status, _ = http("POST", rest[node] + "/restart", {}, auth=None)
        door(status == 401, f"{node}: POST /restart without credentials answered {status} (401 expected)")
    status, body = http("GET", rest[leader or "pg1"] + "/config")
    config = json.loads(body) if status == 200 else {}
    door(config.get("synchronous_mode") is True and config.get("synchronous_mode_strict") is True,
         f"synchronous_mode and synchronous_mode_strict still on (GET /config: {status} {config})")
    status, _ = http("PATCH", rest[leader or "pg1"] + "/config", {"synchronous_mode": True},
                     auth=("patroni", secret.get("PATRONI_RESTAPI_PASSWORD", "")))
    door(status == 200, f"control: PATCH /config with restapi.authentication's password answered {status}")

    # etcd, through its JSON gateway (etcdctl's calls): keys and values base64.
    etcd = f"http://127.0.0.1:{env.get('ETCD_PORT')}/v3"
    prefix = b"/service/postern/"

    def b64(value):
        return base64.b64encode(value).decode()
    planted = prefix + b"planted-" + os.urandom(4).hex().encode()
    status, body = http("POST", etcd + "/kv/put", {"key": b64(planted), "value": b64(b"x")})
    door(status != 200, f"etcd: a put without a token answered {status} {body[:120]!r} (a refusal expected)")
    every_key = {"key": b64(prefix), "range_end": b64(prefix[:-1] + b"0")}
    status, body = http("POST", etcd + "/kv/range", every_key | {"keys_only": True})
    door(status != 200, f"etcd: a read of {prefix.decode()} without a token answered {status} (a refusal expected)")
    status, _ = http("POST", etcd + "/auth/authenticate", {"name": "patroni", "password": "wrong"})
    door(status != 200, f"etcd: the patroni user with a wrong password answered {status} (a refusal expected)")
    status, body = http("POST", etcd + "/auth/authenticate",
                        {"name": "patroni", "password": secret.get("PATRONI_ETCD3_PASSWORD", "")})
    token = json.loads(body).get("token") if status == 200 else None
    door(token is not None, f"control: the patroni user's password gets a token from etcd ({status})")
    if token:
        status, body = http("POST", etcd + "/kv/range", every_key | {"keys_only": True},
                            headers={"Authorization": token})
        keys = [base64.b64decode(kv["key"]) for kv in json.loads(body).get("kvs", [])] if status == 200 else []
        door(prefix + b"leader" in keys, f"control: the token reads Patroni's leader key ({status}, {len(keys)} keys)")
        door(planted not in keys, "etcd: the put without a token was not written")

    # PostgreSQL. Postern's URL (through HAProxy), then each node's port straight.
    app = env.get("PATRONI_HAPROXY_URL", "")
    ok, out = psql(app, "SELECT current_user, rolsuper, rolcreaterole, rolcreatedb, rolreplication FROM pg_roles"
                        " WHERE rolname = current_user")
    door(ok and out == "postern|f|f|f|f", f"Postern's role is `postern`, no superuser nor CREATEROLE, CREATEDB or "
                                          f"REPLICATION ({out!r})")
    ok, out = psql(app, "ALTER SYSTEM SET synchronous_commit = 'local'")
    door(not ok and "permission denied" in out, f"Postern's role: ALTER SYSTEM refused ({out[-120:]!r})")
    ok, out = psql(app, "CREATE ROLE intruder LOGIN")
    door(not ok and "permission denied" in out, f"Postern's role: CREATE ROLE refused ({out[-120:]!r})")
    app_password = secret.get("PG_APP_PASSWORD", "")
    for node in NODES:
        at = f"127.0.0.1:{env.get('PG_' + node)}"
        for url, what in ((f"postgresql://postern@{at}/postern", "Postern's role with no password"),
                          (f"postgresql://postern:wrong@{at}/postern", "Postern's role with a wrong password"),
                          (f"postgresql://postgres@{at}/postgres", "the superuser with no password"),
                          (f"postgresql://postgres:{app_password}@{at}/postgres",
                           "the superuser with Postern's password"),
                          (f"postgresql://replicator:{app_password}@{at}/postgres",
                           "the replication role with Postern's password"),
                          (f"postgresql://postern:{app_password}@{at}/postgres",
                           "Postern's role on the database `postgres`")):
            ok, out = psql(url, "SELECT 1")
            door(not ok, f"{node}: {what} let in")
        ok, out = psql(f"postgresql://postgres:{secret.get('PATRONI_SUPERUSER_PASSWORD', '')}@{at}/postgres",
                       "SELECT 1")
        door(ok and out == "1", f"control: {node}: the superuser with its own password from the node ({out[-120:]!r})")
    if problems:
        raise AssertionError(f"{len(problems)} of {len(problems) + len(seen)} checks failed: " + "; ".join(problems))
    return (f"{len(seen)} checks: the REST API answered 401 to PATCH /config and POST /restart without a password on "
            f"each node, etcd refused an anonymous put and read, Postern's role is no superuser (ALTER SYSTEM "
            f"refused), PostgreSQL refused no password, wrong ones and Postern's for the superuser")


def main():
    directory = tempfile.mkdtemp(prefix="pl-")  # short: PostgreSQL's and HAProxy's socket paths
    os.chmod(directory, 0o711)
    pg_dir, started = os.path.join(directory, "p"), time.monotonic()
    try:
        result = subprocess.run([PATRONI, "start", pg_dir], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, timeout=900)
        if result.returncode != 0:
            print(f"FAIL  scripts/patroni start  ({time.monotonic() - started:.1f} s)  {result.stderr[-2000:]}")
            return 1
        started = time.monotonic()
        try:
            detail = check(pg_dir)
        except AssertionError as error:
            print(f"FAIL  deploy/patroni's doors locked  ({time.monotonic() - started:.1f} s)  {error}", flush=True)
            return 1
        print(f"PASS  deploy/patroni's doors locked  ({time.monotonic() - started:.1f} s)  {detail}", flush=True)
        return 0
    finally:
        subprocess.run([PATRONI, "stop", pg_dir], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
