#!/usr/bin/env python3
"""Issue 73's Patroni stage: two `postern serve` behind HAProxy (scripts/cluster) on three PostgreSQL nodes under
Patroni (scripts/patroni: etcd, synchronous_mode_strict, HAProxy on GET /primary), instance 1 reaching the leader
through that HAProxy, instance 2 through the multi-host URL with target_session_attrs=read-write, both with
POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY=on. One line per test (PASS or FAIL, seconds, its figures); exits 1 when
any fails. Loopback only; about three minutes on the shared 2-core machine.

    Tests/Cluster/patroni_tests.py        # POSTERN_BIN (default .build/release/postern) must exist

Under one write load through Postern's HAProxy (failover_tests' load: Mail.td sign-ups, SMTP deliveries, owner
sign-ups, an OAuth grant's refreshes; each answer sorted as a success, a 503 with Retry-After or SMTP 451 (the
documented answer while the database cannot confirm a write), or a failure: anything else, a 5xx without Retry-After,
a dropped connection, an SMTP 421), one after another:
  switchover        `patronictl switchover` from the leader to its synchronous replica
  kill PostgreSQL   kill -9 of the leader's postmaster and backends (its Patroni restarts it or a replica takes over)
  kill Patroni      kill -9 of the leader's Patroni: its PostgreSQL runs on, writable, until the leader key expires
                    (ttl) and the synchronous replica is elected; the killed Patroni is then started again, as systemd
                    would, reloads its node without a synchronous standby for a moment (Patroni #2841) and demotes it.
                    Instance 2 may have been writing there: POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY answers those
                    503 instead of acknowledging a commit about to be rewound
  rolling restart   each instance restarted by SIGTERM alone, one at a time (its drain takes it out of HAProxy before
                    it closes): zero failed requests, zero 503s
After each event the cluster is let become healthy again (three nodes, a synchronous replica). Printed per event: the
503s (and SMTP 451s) answered from it to the next, and the first 2xx after it. Then: every acknowledged write is found
(failover_tests' check), no failure of any other kind happened, and a JMAP event source and a JMAP WebSocket with
push opened on each instance before the switchover both deliver a message delivered after the Patroni kill (a push
that did not says whether its stream ended, failed or timed out). Those streams hold OAuth access tokens (15 minutes),
since the events last longer than a capability token's two minutes on a loaded machine; printed: how long after the
tokens were minted the push was checked.
Last (an unauthenticated write let in would disturb the events above), patroni_locked's check on the same cluster
(issue 81): Patroni's REST API answers 401 to PATCH /config and POST /restart without its password, etcd refuses an
anonymous put and read, Postern's role is no superuser, and PostgreSQL refuses no password and another role's.
On a failure the instances', HAProxy's and Patroni's logs are copied to artifacts/patroni-tests/. Standard library only.
"""
import concurrent.futures
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import failover_tests as fo  # noqa: E402 - its load, checks and event source
import patroni_locked  # noqa: E402 - the doors of deploy/patroni's configuration, knocked on without credentials

ct = fo.ct
PATRONI = os.path.join(ct.SCRIPTS, "patroni")
ARTIFACTS = os.path.join(ct.REPO, "artifacts", "patroni-tests")
# Generous for the shared machine: HAProxy needs two failed checks (inter 1 s, then fastinter) to see a draining
# instance down, SMTP's checks every 2 s; a request must never reach an instance that is closing.
DRAIN_SECONDS = 6
SETTLE_SECONDS = 3  # load after the cluster is healthy again, before the next event
expect, Failure, call = ct.expect, ct.Failure, ct.call


class PatroniCluster(fo.HACluster):
    """scripts/cluster on scripts/patroni (CLUSTER_DATABASE=patroni)."""

    start_timeout = 600  # three nodes cloned and started on a machine other engineers' builds load

    def __init__(self, directory):
        super().__init__(directory, "patroni")

    def start(self):
        ct.CLUSTER_SETTINGS["POSTERN_DRAIN_SECONDS"] = str(DRAIN_SECONDS)
        super().start()

    def patroni(self, command, *args, timeout=300):
        result = subprocess.run([PATRONI, command, self.env["PG_DIR"], *args], capture_output=True, text=True,
                                timeout=timeout)
        expect(result.returncode == 0, f"scripts/patroni {command}: {result.stderr.strip()[-2000:]}")
        return result.stdout.strip()

    def leader(self):
        result = subprocess.run([PATRONI, "leader", self.env["PG_DIR"]], capture_output=True, text=True, timeout=60)
        return result.stdout.strip() if result.returncode == 0 else None

    def restart_by_sigterm(self, i):
        return self.script("restart-instance", self.dir, str(i), "--sigterm", timeout=240)


def retry_after(headers):
    return bool(headers and (headers.get("retry-after") or headers.get("Retry-After")))


class Load(fo.Load):
    """failover_tests' load, each answer sorted: `ok`, `unavailable` (503 with Retry-After, SMTP 451) or `failed`
    (anything else), with its time, in `answers`."""

    pace = 0.2  # seconds between one thread's requests

    def __init__(self, cluster, recipient, oauth):
        super().__init__(cluster, recipient, oauth)
        self.answers = []  # (started, finished, kind, what)

    def note(self, started, kind, what):
        with self.lock:
            self.answers.append((started, time.monotonic(), kind, what))

    def sorted_http(self, started, r, what):
        """Notes `r` (a Response or None for a dropped connection); returns whether it was a success."""
        if r is None:
            self.note(started, "failed", f"{what}: connection failed")
        elif 200 <= r.status < 400:
            self.note(started, "ok", what)
            return True
        elif r.status == 503 and retry_after(r.headers):
            self.note(started, "unavailable", what)
        else:
            self.note(started, "failed", f"{what}: {r}")
        return False

    def loop(self, attempt):
        """Runs `attempt` until stopped, `pace` apart: the events need a steady load, not the most the machine
        can take (each acknowledged write is checked afterwards)."""
        while not self.stopping.is_set():
            attempt()
            time.sleep(self.pace)

    def signups(self):
        def attempt():
            started = time.monotonic()
            try:
                challenge = call(self.cluster.url, "GET", "/api/challenge")
                if challenge.status != 200:
                    return self.sorted_http(started, challenge, "GET /api/challenge")
                proof = {"id": challenge.json()["id"], "nonce": ct.mailbox_nonce(challenge.json())}
                address, password = ct.mailbox_address(), "patroni-pw-" + secrets.token_hex(4)
                r = ct.mailbox_create(self.cluster.url, address, password, proof)
            except ct.NETWORK_ERRORS:
                return self.sorted_http(started, None, "POST /api/accounts")
            if self.sorted_http(started, r, "POST /api/accounts") and r.status == 201:
                with self.lock:
                    self.accounts.append((address, password))
                    self.successes.append((started, time.monotonic()))
                return True
            return False
        self.loop(attempt)

    def deliveries(self):
        address = self.recipient[1]
        port = int(self.cluster.env["CLUSTER_SMTP_PORT"])

        def attempt():
            started = time.monotonic()
            subject = "patroni " + secrets.token_hex(6)
            try:
                with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
                    smtp.sendmail("load@example.org", [address],
                                  f"From: load@example.org\r\nTo: {address}\r\nSubject: {subject}\r\n\r\nx\r\n")
            except smtplib.SMTPRecipientsRefused as error:
                codes = {code for code, _ in error.recipients.values()}
                self.note(started, "unavailable" if codes == {451} else "failed", f"SMTP RCPT {codes}")
                return False
            except smtplib.SMTPResponseException as error:
                self.note(started, "unavailable" if error.smtp_code == 451 else "failed",
                          f"SMTP {error.smtp_code} {error.smtp_error!r}")
                return False
            except (smtplib.SMTPException, *ct.NETWORK_ERRORS) as error:
                self.note(started, "failed", f"SMTP {type(error).__name__}: {error}")
                return False
            self.note(started, "ok", "SMTP")
            with self.lock:
                self.messages.append(subject)
                self.successes.append((started, time.monotonic()))
            return True
        self.loop(attempt)

    def owner_signups(self):
        def attempt():
            started = time.monotonic()
            email, password = f"owner-{secrets.token_hex(6)}@example.com", "patroni-owner-" + secrets.token_hex(4)
            driver = ct.FormDriver(self.cluster.url)
            try:
                status, _, html = driver.request("GET", "/owner/sign-up")
                if status != 200:
                    return self.sorted_http(started, ct.Response(status, driver.last_headers, b""), "GET /owner/sign-up")
                form = driver.forms(html).form("/owner/sign-up")
                status, _, _ = driver.request("POST", form["action"],
                                              driver.hidden(form) | {"email": email, "password": password})
            except ct.NETWORK_ERRORS:
                return self.sorted_http(started, None, "POST /owner/sign-up")
            jar = next(h.cookiejar for h in driver.opener.handlers if hasattr(h, "cookiejar"))
            session = any(c.name == "postern_owner" and c.value for c in jar)
            if status == 303 and not session:
                self.note(started, "failed", "POST /owner/sign-up: 303 without a session")
                return False
            if self.sorted_http(started, ct.Response(status, driver.last_headers, b""), "POST /owner/sign-up"):
                with self.lock:
                    self.owners.append((email, password))
                    self.successes.append((started, time.monotonic()))
                return True
            return False
        self.loop(attempt)

    def refreshes(self):
        """The grant's refresh chain (failover_tests' rules): a 503 or a dropped connection retried with the same
        token after Retry-After, at least past the race window."""
        client, refresh, _ = self.oauth
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                r = fo.oauth_token(self.cluster.url, client, grant_type="refresh_token", refresh_token=refresh)
            except ct.NETWORK_ERRORS:
                r = None
            if self.sorted_http(started, r, "POST /oauth/token (refresh)"):
                with self.lock:
                    refresh = self.last_refresh = r.json()["refresh_token"]
                    self.access_tokens.append(r.json()["access_token"])
                    self.successes.append((started, time.monotonic()))
                time.sleep(self.pace)
                continue
            if r is not None and r.status != 503:
                with self.lock:
                    self.refused_refreshes.append(str(r))
                return
            time.sleep(max(fo.retry_after(r) if r is not None else 0, fo.REFRESH_RACE_SECONDS + 1))

    def check(self):
        """failover_tests' check, four requests at a time: (acknowledged, found, lost)."""
        def signs_in(account):
            return fo.retry(lambda: ct.mailbox_token(self.cluster.url, *account)).status == 200

        def owner_signs_in(owner):
            return fo.retry(lambda: ct.Response(fo.owner_signs_in(self.cluster.url, *owner), {}, b"")).status == 303

        def token_works(access):
            return fo.retry(lambda: call(self.cluster.url, "GET", "/.well-known/jmap", bearer=access,
                                         headers={"X-Atomic-Account-Id": self.oauth[2]})).status == 200
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            found = sum(pool.map(signs_in, self.accounts)) + sum(pool.map(owner_signs_in, self.owners))
            found += sum(pool.map(token_works, self.access_tokens))
        # The messages (one listing) and the last refresh token, as failover_tests checks them.
        accounts, owners, tokens = self.accounts, self.owners, self.access_tokens
        self.accounts, self.owners, self.access_tokens = [], [], []
        try:
            acknowledged, rest_found, _ = super().check()
        finally:
            self.accounts, self.owners, self.access_tokens = accounts, owners, tokens
        acknowledged += len(accounts) + len(owners) + len(tokens)
        found += rest_found
        return acknowledged, found, acknowledged - found

    def start(self):
        workers = [self.signups] + [self.deliveries] * 2 + [self.owner_signups, self.refreshes]
        self.pool = concurrent.futures.ThreadPoolExecutor(len(workers))
        self.futures = [self.pool.submit(w) for w in workers]

    def stop(self):
        self.stopping.set()
        for f in self.futures:
            f.result()
        self.pool.shutdown()

    def window(self, begin, end):
        """(503s, failures, first 2xx after `begin` in seconds or None, the last 503's answer after `begin` in seconds
        or None) of the requests started in [begin, end)."""
        with self.lock:
            inside = [a for a in self.answers if begin <= a[0] < end]
            later = [finished for started, finished, kind, _ in self.answers if kind == "ok" and started >= begin]
        refused = [finished for _, finished, kind, _ in inside if kind == "unavailable"]
        failed = [a[3] for a in inside if a[2] == "failed"]
        return (len(refused), failed, (min(later) - begin) if later else None,
                (max(refused) - begin) if refused else None)


def read_until_state(stream, response, state, seconds=120):
    """Reads the event source's lines until a state event at `state`, for `seconds` at most; then closes it. Returns
    None when it came, else how the stream failed to bring it: it ended (the server closed it), it timed out, or its
    socket failed, with the event ids it did send. The failovers before may have sent state events of their own (a
    reconnected LISTEN wakes each stream); they are in the kernel's buffer, read at once."""
    deadline, ids = time.monotonic() + seconds, []
    # The response's socket (the connection hands it to a response that ends with the connection).
    sock = stream.sock or response.fp.raw._sock
    try:
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)  # a readline waits no longer than the deadline
            line = response.readline().decode(errors="replace")
            if not line:
                return f"the stream ended (the server closed it) after the events {ids}"
            if line.startswith("id: "):
                ids.append(line[4:].strip())
                if line.startswith(f"id: {state}."):
                    return None
        return f"timed out: no event at state {state} within {seconds} s (the events before: {ids})"
    except TimeoutError:
        return f"timed out: no event at state {state} within {seconds} s (the events before: {ids})"
    except (OSError, http.client.HTTPException) as error:
        return f"the stream failed ({type(error).__name__}: {error}) after the events {ids}"
    finally:
        stream.close()


class PushSocket:
    """A JMAP WebSocket (RFC 8887, `/jmap/ws`) on instance `i` with push enabled, read by a thread of its own that
    answers the server's pings (the server closes a socket whose pongs stop, after POSTERN_WEBSOCKET_PONG_TIMEOUT_SECONDS)
    and keeps each StateChange's pushState, until the server closes it or `close()`."""

    def __init__(self, cluster, i, credentials):
        self.sock = ct.ws_open(cluster.base(i), "/jmap/ws", credentials | {"Sec-WebSocket-Protocol": "jmap"})
        ct.ws_send_text(self.sock, json.dumps({"@type": "WebSocketPushEnable", "dataTypes": None}))
        self.sock.settimeout(None)  # the reader waits as long as the socket lives; close() ends it
        self.states, self.ended, self.changed = [], None, threading.Condition()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError("the server closed the connection")
            data += chunk
        return data

    def read(self):
        try:
            while True:
                first, second = self.exactly(2)
                length = second & 0x7F
                if length >= 126:
                    length = int.from_bytes(self.exactly(2 if length == 126 else 8), "big")
                payload, opcode = self.exactly(length), first & 0x0F
                if opcode == 9:
                    ct.ws_send_text(self.sock, payload, opcode=0xA)
                elif opcode == 8:
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                    raise EOFError(f"the server closed the WebSocket ({code} {payload[2:].decode(errors='replace')!r})")
                elif opcode == 1:
                    message = json.loads(payload)
                    if message.get("@type") == "StateChange":
                        with self.changed:
                            self.states.append(message.get("pushState", ""))
                            self.changed.notify_all()
        except (OSError, EOFError, ValueError) as error:
            with self.changed:
                self.ended = f"{type(error).__name__}: {error}"
                self.changed.notify_all()

    def wait_for(self, state, seconds=120):
        """None once a StateChange at mail state `state` came, else why not (the socket ended, or the time ran out),
        with the pushStates it did send."""
        deadline = time.monotonic() + seconds
        with self.changed:
            while not any(s.startswith(f"{state}.") for s in self.states):
                if self.ended:
                    return f"the socket ended ({self.ended}) after the pushStates {self.states}"
                if not self.changed.wait(deadline - time.monotonic()) and time.monotonic() >= deadline:
                    return f"timed out: no StateChange at state {state} within {seconds} s (before: {self.states})"
        return None

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def summary(load, moments):
    """A line per event (its 503s, failures and first 2xx, up to the next), and every failure named by its event."""
    lines, failures = [], []
    for (name, at, detail), (_, following, _) in zip(moments, moments[1:]):
        unavailable, failed, first, last = load.window(at, following)
        lines.append(f"{name} ({detail.strip()}): {unavailable} answered 503/451"
                     f"{'' if last is None else f' (the last {last:.2f} s after it)'}, first 2xx "
                     f"{'never' if first is None else f'{first:.2f} s'} after it, {len(failed)} failed")
        failures += [f"{name}: {f}" for f in failed]
    return lines, failures


def test_events(cluster):
    recipient = fo.new_account(cluster.url)
    # Each stream checks its bearer before every event and ends once it has expired, and the events below last as
    # long as the machine makes them (two minutes on a quiet one, more on a loaded one): their bearers are OAuth
    # access tokens (15 minutes), not capability tokens (2), each for a new grant's inbox.
    minted = time.monotonic()
    streams = [fo.open_event_source(cluster, i, close_after_state=False, credentials=fo.grant_credentials(cluster))
               for i in (1, 2)]
    # A JMAP WebSocket with push on each instance, on the same account as its event source.
    sockets = [PushSocket(cluster, i, credentials) for i, (_, credentials, _, _) in enumerate(streams, 1)]
    load = Load(cluster, recipient, fo.oauth_grant(cluster))
    moments = []  # (event, time, detail)

    def event(name, action):
        moments.append([name, time.monotonic(), ""])
        moments[-1][2] = action() or ""

    def healthy():
        cluster.patroni("wait-healthy", "240", timeout=300)
        time.sleep(SETTLE_SECONDS)

    def kill_patroni():
        node = cluster.patroni("kill-patroni")
        deadline = time.monotonic() + 240
        while cluster.leader() in (None, node):  # the key expires after ttl; the synchronous replica is elected
            expect(time.monotonic() < deadline, f"no new leader within 240 s of {node}'s Patroni killed")
            time.sleep(0.5)
        elected = time.monotonic() - moments[-1][1]
        new = cluster.leader()
        cluster.patroni("start-node", node)  # as systemd would: it finds its PostgreSQL running and demotes it
        return f"{node}'s Patroni killed, {new} elected after {elected:.1f} s, {node}'s Patroni started again"

    load.start()
    failed_step = None
    try:
        time.sleep(SETTLE_SECONDS)
        event("switchover", lambda: "to " + cluster.patroni("switchover"))
        healthy()
        event("kill -9 PostgreSQL", lambda: "of " + cluster.patroni("kill-postgres"))
        healthy()
        event("kill -9 Patroni", kill_patroni)
        healthy()
        # Before the rolling restart resets them: the commits each instance answered 503 for, by reason.
        moments[-1][2] += "; commits in doubt: " + ", ".join(
            f"{reason} {fo.in_doubt_count(cluster, reason)}"
            for reason in ("timeout", "replication_canceled", "no_synchronous_standby"))
        # The event sources opened before the switchover: a message delivered now, by another process, reaches both.
        pushed = []
        late = time.monotonic() - minted
        for i, ((address, credentials, stream, response), push) in enumerate(zip(streams, sockets), 1):
            message = os.path.join(cluster.dir, "late.eml")
            with open(message, "w") as f:
                f.write(f"From: late@example.org\r\nTo: {address}\r\nSubject: after patroni\r\n\r\nx\r\n")
            cluster.postern("mail", "deliver", "--to", address, message)
            now = fo.jmap_state(cluster.base(1), credentials)
            why = read_until_state(stream, response, now)
            pushed.append(why and f"instance {i}'s event source: {why}")
            why = push.wait_for(now)
            pushed.append(why and f"instance {i}'s WebSocket: {why}")
            push.close()
        event("rolling restart", lambda: (cluster.restart_by_sigterm(1), cluster.restart_by_sigterm(2)) and "")
        time.sleep(SETTLE_SECONDS)
        moments.append(["end", time.monotonic(), ""])
    except Exception:
        failed_step = moments[-1][0] if moments else "before the first event"
        raise
    finally:
        load.stop()
        for push in sockets:
            push.close()
        if failed_step:
            moments.append(["failure", time.monotonic(), ""])
            print(f"  (failed during {failed_step})\n  " + "\n  ".join(summary(load, moments)[0]), flush=True)
    lines, failures = summary(load, moments)
    _, failed_before, _, _ = load.window(0, moments[0][1])
    failures += [f"before the first event: {f}" for f in failed_before]
    print("  " + "\n  ".join(lines), flush=True)
    restart = next(i for i, m in enumerate(moments) if m[0] == "rolling restart")
    unavailable, failed, _, _ = load.window(moments[restart][1], moments[restart + 1][1])
    expect(unavailable == 0 and not failed, f"the rolling restart failed requests: {unavailable} 503s, {failed[:10]}")
    acknowledged, found, lost = load.check()
    expect(lost == 0, f"{lost} acknowledged writes are missing ({acknowledged} acknowledged)")
    expect(not failures, f"{len(failures)} requests failed otherwise than 503 + Retry-After: {failures[:10]}")
    expect(not load.refused_refreshes, f"a refresh retried after a 503 was refused: {load.refused_refreshes}")
    expect(len(load.accounts) and len(load.messages) and len(load.owners) and len(load.access_tokens),
           "a kind of write acknowledged nothing")
    expect(not any(pushed), "a push opened before the switchover did not deliver: " + "; ".join(filter(None, pushed)))
    return (f"acknowledged {acknowledged} ({len(load.accounts)} sign-ups, {len(load.messages)} messages, "
            f"{len(load.owners)} owner sign-ups, {len(load.access_tokens)} refreshes), found {found}, lost {lost}, "
            f"no other failure; the event sources and WebSockets opened before the switchover on both instances "
            f"delivered after the Patroni kill, checked {late:.1f} s after their access tokens were minted")


def keep_logs(cluster):
    pg_dir = cluster.env.get("PG_DIR", "/nonexistent")
    files = {f"instance-{i}.log": cluster.env.get(f"INSTANCE_{i}_LOG", "") for i in (1, 2)}
    files |= {f"{node}-{name}": os.path.join(pg_dir, node, name)
              for node in ("pg1", "pg2", "pg3") for name in ("patroni.log", "patroni.out")}
    files["postgres-haproxy.log"] = os.path.join(pg_dir, "haproxy.log")
    os.makedirs(ARTIFACTS, exist_ok=True)
    for target, path in files.items():
        if path and os.path.exists(path):
            shutil.copy(path, os.path.join(ARTIFACTS, target))


def main():
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    workdir = tempfile.mkdtemp(prefix="postern-patroni-")
    os.chmod(workdir, 0o711)
    results = []
    everything = time.monotonic()

    def report(name, ok, seconds, detail):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'}  {name}  ({seconds:.1f} s)  {detail}", flush=True)

    cluster = PatroniCluster(os.path.join(workdir, "c"))
    started = time.monotonic()
    try:
        try:
            cluster.start()
            report("scripts/cluster start on scripts/patroni", True, time.monotonic() - started,
                   f"instance 1 {re.sub(r':[^:@/]*@', ':***@', cluster.env['POSTERN_DATABASE_URL'])}, "
                   "instance 2 the multi-host URL")  # Postern's role's password left out of the log
        except Failure as error:
            report("scripts/cluster start on scripts/patroni", False, time.monotonic() - started, str(error))
            return 1
        started = time.monotonic()
        name = ("switchover, kill -9 of the leader's PostgreSQL, of its Patroni, a rolling restart, under load: "
                "nothing acknowledged lost, 503 + Retry-After the only refusal, push follows")
        try:
            detail = test_events(cluster)
            report(name, True, time.monotonic() - started, detail)
        except Exception as error:  # noqa: BLE001 - a test's failure, whatever it is
            message = str(error) if isinstance(error, Failure) else traceback.format_exc(limit=4)
            report(name, False, time.monotonic() - started, message)
        started = time.monotonic()
        name = "deploy/patroni's doors locked: REST API, etcd and PostgreSQL refuse what has no credential"
        try:
            detail = patroni_locked.check(cluster.env["PG_DIR"])
            report(name, True, time.monotonic() - started, detail)
        except Exception as error:  # noqa: BLE001 - a test's failure, whatever it is
            message = str(error) if isinstance(error, AssertionError) else traceback.format_exc(limit=4)
            report(name, False, time.monotonic() - started, message)
        if not all(results):
            keep_logs(cluster)
    finally:
        cluster.stop()
        subprocess.run(["rm", "-rf", workdir], check=False)
        print(f"patroni-tests: {sum(results)} of {len(results)} passed in {time.monotonic() - everything:.1f} s",
              flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
