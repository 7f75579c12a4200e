#!/usr/bin/env python3
"""Issue 53's failover suite: two `postern serve` behind HAProxy (scripts/cluster) on a PostgreSQL primary and a
synchronous standby (scripts/pg-ha, the multi-host URL with target_session_attrs=read-write), then the same on an
asynchronous pair as the harness's own control. One line per test (PASS or FAIL, seconds, its figures); exits 1 when
any fails. Loopback only, bounded (about two and a half minutes in all).

    Tests/Cluster/failover_tests.py        # POSTERN_BIN (default .build/release/postern) must exist

On the synchronous pair, in this order:
  lost standby     its WAL sender frozen: writes answer 503, counted as the commit timeout's (not a hang until the
                   thaw), reads keep answering; thawed, writes succeed again without a restart
  canceled wait    frozen again, the backends of a sign-up and of an OAuth refresh waiting for the standby are
                   canceled from psql (pg_cancel_backend): both clients get 503, never 2xx, and the commits are counted
                   in doubt; thawed, the refresh retried with the same token after Retry-After gets 200 (its rotation
                   had committed: the retry is rotated again, not taken for a reuse) and the grant lives on
  zero loss        20 s of load through HAProxy (Mail.td sign-ups, each 201 recorded; SMTP deliveries, each 250 recorded;
                   owner sign-ups at /owner/sign-up, each 303 with a session recorded; an OAuth grant's refreshes, each
                   200 recorded, a 503 retried with the same token after Retry-After), kill -9 of the primary at 8 s
                   and promotion of the standby; afterwards every recorded account signs in
                   (POST /api/token 200), every accepted message is listed, every owner signs in at /owner/sign-in,
                   every refreshed access token opens the JMAP session and the last refresh token handed out refreshes
                   again, and no retried refresh was refused (an in-doubt rotation must not cost the client its
                   grant). The time from the kill to the
                   first 2xx is printed. A /messages/wait and a JMAP event source opened on instance 2 before the kill
                   wake on a message another process delivers after the promotion (the LISTEN connection followed the
                   new primary), and so do the other push doors held open there through the kill (issue 82): Mailpit's
                   events socket (never closed with 1011), an IMAP IDLE session (never silent), the operator's wait and
                   mail.cx's long poll (polled again after each 204 as its clients do, never an error)
On the asynchronous pair (the control): the same load with the standby's WAL sender frozen shortly before the kill
must show acknowledged writes lost in this suite's own count, or the check could not see loss at all.
On a failure the instances' and HAProxy's logs are copied to artifacts/failover-tests/. Standard library only.
"""
import base64
import concurrent.futures
import hashlib
import http.client
import importlib.machinery
import importlib.util
import os
import re
import secrets
import signal
import smtplib
import subprocess
import sys
import tempfile
import json
import threading
import time
import traceback
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


ct = load("cluster_tests", os.path.join(HERE, "cluster_tests.py"))  # its HTTP, Mail.td and cluster helpers
PG_HA = os.path.join(ct.SCRIPTS, "pg-ha")
ARTIFACTS = os.path.join(ct.REPO, "artifacts", "failover-tests")
COMMIT_TIMEOUT = 2  # POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS of the instances under test
REFRESH_RACE_SECONDS = 2  # POSTERN_OAUTH_REFRESH_RACE_SECONDS, the default
# The zero-loss run (issue 53): this long under load through HAProxy, the primary killed -9 at this second.
LOAD_SECONDS = 20
KILL_AT_SECONDS = 8
expect, Failure, call = ct.expect, ct.Failure, ct.call
OPERATOR_TOKEN = "failover-operator-token-" + "5" * 16  # POSTERN_OPERATOR_TOKEN of the instances (32+ characters)
MAILCX_DOMAIN = "mailcx.localhost"  # POSTERN_MAILCX_DOMAINS of the instances


class HACluster(ct.Cluster):
    """scripts/cluster on scripts/pg-ha (CLUSTER_DATABASE=pg-ha or pg-ha-async)."""

    def __init__(self, directory, database):
        super().__init__(directory)
        self.database = database

    def start(self):
        saved = {k: os.environ.get(k) for k in ("CLUSTER_DATABASE", "POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS")}
        os.environ["CLUSTER_DATABASE"] = self.database
        ct.CLUSTER_SETTINGS["POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS"] = str(COMMIT_TIMEOUT)
        ct.CLUSTER_SETTINGS["POSTERN_OWNER_SIGNUP"] = "open"  # the load's owner sign-ups
        ct.CLUSTER_SETTINGS["POSTERN_OWNER_SIGNUPS_PER_HOUR"] = "0"
        ct.CLUSTER_SETTINGS["POSTERN_OPERATOR_TOKEN"] = OPERATOR_TOKEN  # the operator's wait and Mailpit's events
        ct.CLUSTER_SETTINGS["POSTERN_MAILCX_DOMAINS"] = MAILCX_DOMAIN  # mail.cx's long poll
        try:
            super().start()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def pg_ha(self, command):
        result = subprocess.run([PG_HA, command, self.env["PG_DIR"]], capture_output=True, text=True, timeout=60)
        expect(result.returncode == 0, f"scripts/pg-ha {command}: {result.stderr.strip()}")

    def primary_psql(self, sql):
        """The command line of psql running `sql` on the primary itself (not through the multi-host URL)."""
        with open(os.path.join(self.env["PG_DIR"], "primary", "port")) as f:
            port = f.read().strip()
        return [ct.psql_binary(), "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "postern", "-tAX", "-c", sql]

    def primary_sql(self, sql):
        """One query on the primary itself, its output."""
        result = subprocess.run(self.primary_psql(sql), capture_output=True, text=True, timeout=30)
        expect(result.returncode == 0, f"psql {sql!r}: {result.stderr.strip()}")
        return result.stdout.strip()

    def stop(self):
        subprocess.run([ct.CLUSTER, "stop", self.dir], capture_output=True, timeout=120)


def new_account(base):
    """A Mail.td account: (id, address, password, token)."""
    return ct.mailbox_account(base, password="failover-pw-1")


def in_doubt_count(cluster, reason, instances=(1, 2)):
    total = 0
    for i in instances:
        text = call(cluster.base(i), "GET", "/metrics").body.decode()
        found = re.search(rf'^postern_storage_commits_in_doubt_total{{reason="{reason}"}} (\d+)', text, re.M)
        total += int(found.group(1)) if found else 0
    return total


# --- The load -------------------------------------------------------------------------------------------------------

def oauth_token(base, client, **fields):
    body = urllib.parse.urlencode(dict(fields, client_id=client)).encode()
    return call(base, "POST", "/oauth/token", body, headers={"Content-Type": "application/x-www-form-urlencoded"})


def oauth_grant(cluster):
    """An owner's consent to a new public client through the balancer: (client id, refresh token, the grant's inbox,
    which the JMAP session of an access token names in X-Atomic-Account-Id)."""
    client, tokens, inbox = oauth_consent(cluster)
    return client, tokens["refresh_token"], inbox


def oauth_consent(cluster):
    """``oauth_grant``'s consent and code exchange: (client id, the exchange's answer, the grant's inbox)."""
    email, password = f"owner-{secrets.token_hex(4)}@example.com", "failover-owner-pw"
    cluster.postern("owner", "create", "--email", email, "--password", password)
    issuer = call(cluster.url, "GET", "/.well-known/oauth-authorization-server").json()["issuer"]
    redirect = "http://127.0.0.1:9/cb"
    client = call(cluster.url, "POST", "/oauth/register", {"redirect_uris": [redirect]}).json()["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": client, "redirect_uri": redirect, "scope": "mail.read",
        "resource": issuer + "/jmap", "state": "failover", "code_challenge": challenge, "code_challenge_method": "S256"})
    callback = ct.FormDriver(cluster.url).authorize("/oauth/authorize?" + query, email, password,
                                                   new_inbox="oauth" + secrets.token_hex(4))
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(callback).query).get("code", [""])[0]
    expect(code, f"consent gave no code: {callback}")
    first = oauth_token(cluster.url, client, grant_type="authorization_code", code=code, redirect_uri=redirect,
                        code_verifier=verifier)
    expect(first.status == 200, f"code exchange: {first}")
    inbox = cluster.psql(f"SELECT agent_id FROM oauth_grants WHERE client_id = '{client}'")[0][0]
    return client, first.json(), inbox


def retry_after(response):
    """The seconds a 503 asks the client to wait (an OAuth refresh's must pass its race window), at least 0.05."""
    try:
        return max(0.05, float(response.headers.get("retry-after", "0")))
    except (AttributeError, ValueError):
        return 0.05


def owner_form(base, page, email, password):
    """Fills the owner form at `page` (/owner/sign-up or /owner/sign-in) through a new cookie jar: (the POST's
    status, whether the owner's session cookie is set), or None when the form itself did not load (a 503)."""
    driver = ct.FormDriver(base)
    status, _, html = driver.request("GET", page)
    if status != 200:
        return None
    form = driver.forms(html).form(page)
    status, _, _ = driver.request("POST", form["action"], driver.hidden(form) | {"email": email, "password": password})
    jar = next(h.cookiejar for h in driver.opener.handlers if hasattr(h, "cookiejar"))
    return status, any(c.name == "postern_owner" and c.value for c in jar)


def owner_sign_up(base, email, password):
    """Whether /owner/sign-up answered 303 and opened a session (a new owner), not a 503 page."""
    return owner_form(base, "/owner/sign-up", email, password) == (303, True)


def owner_signs_in(base, email, password):
    """The status of /owner/sign-in's POST (303 when the owner exists), 503 when the form did not load."""
    answer = owner_form(base, "/owner/sign-in", email, password)
    return answer[0] if answer else 503


class Load:
    """Mail.td sign-ups, SMTP deliveries, owner sign-ups and OAuth refreshes through HAProxy from a few threads; every
    2xx and 250 recorded with its time."""

    # Seconds between one thread's requests. Unpaced, the closed loops took what the machine had (6,721 writes in the
    # 20 s of a quiet run, 85 CPU-s for the stage with the check of each) from the stages beside them; paced, a write
    # is still in flight at every moment of the kill.
    pace = 0.05

    def __init__(self, cluster, recipient, oauth=None):
        self.cluster, self.recipient, self.oauth = cluster, recipient, oauth  # recipient: (id, address, password, token)
        self.accounts, self.messages, self.successes, self.failures = [], [], [], 0
        self.access_tokens, self.owners = [], []
        self.last_refresh = None  # the refresh token of the chain's last 200
        self.refused_refreshes = []  # a refresh answered 400 after a 503: the client punished for an in-doubt rotation
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def repeat(self, attempt, record):
        """Runs `attempt` until stopped, `pace` apart: what it returns, when not None, is recorded by `record`
        (under the lock) with the request's time as a success; None or an error counts a failure."""
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                done = attempt()
            except (Failure, *ct.NETWORK_ERRORS, smtplib.SMTPException, ValueError, KeyError, TypeError, AttributeError,
                    AssertionError):
                done = None
            with self.lock:
                if done is not None:
                    record(done)
                    self.successes.append((started, time.monotonic()))
                else:
                    self.failures += 1
            time.sleep(self.pace)

    def signups(self):
        def attempt():
            address, password = ct.mailbox_address(), "failover-pw-" + secrets.token_hex(4)
            r = ct.mailbox_create(self.cluster.url, address, password, ct.mailbox_proof(self.cluster.url))
            return (address, password) if r.status == 201 else None
        self.repeat(attempt, self.accounts.append)

    def deliveries(self):
        address = self.recipient[1]
        port = int(self.cluster.env["CLUSTER_SMTP_PORT"])

        def attempt():
            subject = "failover " + secrets.token_hex(6)
            with smtplib.SMTP("127.0.0.1", port, timeout=15) as smtp:
                refused = smtp.sendmail("load@example.org", [address],
                                        f"From: load@example.org\r\nTo: {address}\r\nSubject: {subject}\r\n\r\nx\r\n")
            return subject if refused == {} else None
        self.repeat(attempt, self.messages.append)

    def owner_signups(self):
        def attempt():
            email, password = f"owner-{secrets.token_hex(6)}@example.com", "failover-owner-" + secrets.token_hex(4)
            return (email, password) if owner_sign_up(self.cluster.url, email, password) else None
        self.repeat(attempt, self.owners.append)

    def refreshes(self):
        """One grant's refresh chain, as a client runs it: each 200 gives the next refresh token and an access token
        that must work; a 503 or a dropped connection is retried with the same token after Retry-After (at least past
        the race window), and must not end in a refusal even when the rotation it could not confirm had committed."""
        client, refresh, _ = self.oauth
        in_doubt = False
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                r = oauth_token(self.cluster.url, client, grant_type="refresh_token", refresh_token=refresh)
            except ct.NETWORK_ERRORS:
                r = None
            with self.lock:
                if r is not None and r.status == 200:
                    refresh = self.last_refresh = r.json()["refresh_token"]
                    self.access_tokens.append(r.json()["access_token"])
                    self.successes.append((started, time.monotonic()))
                else:
                    self.failures += 1
            if r is not None and r.status == 200:
                in_doubt = False
                time.sleep(self.pace)
                continue
            if r is not None and r.status != 503:
                with self.lock:
                    self.refused_refreshes.append(f"{r} ({'after a 503' if in_doubt else 'no 503 before'})")
                return
            in_doubt = True
            # A refresh whose answer was lost (a dropped connection, HAProxy's own 503 without Retry-After) may have
            # rotated: its retry is told from a racing request only past the race window, so a client waits that long.
            time.sleep(max(retry_after(r) if r is not None else 0, REFRESH_RACE_SECONDS + 1))

    def run(self, seconds, events):
        """Runs the load for `seconds`; `events` is [(at seconds, function)], each run once at its time."""
        # A thread for each kind of write (two for deliveries), each paced: the kill needs writes of every kind in
        # flight, not as many as the machine can make.
        workers = [self.signups] + [self.deliveries] * 2 + [self.owner_signups]
        workers += [self.refreshes] if self.oauth else []
        begin = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
            futures = [pool.submit(w) for w in workers]
            try:
                for at, function in sorted(events, key=lambda e: e[0]):
                    time.sleep(max(0.0, begin + at - time.monotonic()))
                    function()
                time.sleep(max(0.0, begin + seconds - time.monotonic()))
            finally:
                self.stopping.set()
                for f in futures:
                    f.result()

    def first_success_after(self, moment):
        """Seconds from `moment` to the end of the first 2xx or 250 of a request sent after it."""
        with self.lock:
            later = [finished for started, finished in self.successes if started >= moment]
        return min(later) - moment if later else None

    def check(self):
        """(acknowledged, found, lost): every recorded account and owner signs in, every 250-accepted message is
        listed, every refreshed access token works and the last refresh token refreshes."""
        missing = 0
        for address, password in self.accounts:
            r = retry(lambda: ct.mailbox_token(self.cluster.url, address, password))
            if r.status != 200:
                missing += 1
        account_id, _, password, _ = self.recipient
        token = retry(lambda: ct.mailbox_token(self.cluster.url, self.recipient[1], password)).json()["token"]
        listed = set()
        page = 1
        while True:
            r = retry(lambda: call(self.cluster.url, "GET", f"/api/accounts/{account_id}/messages?page={page}",
                                   bearer=token))
            found = [m["subject"] for m in (r.json() or {}).get("messages", [])]
            listed.update(found)
            if not found:
                break
            page += 1
        missing += sum(1 for subject in self.messages if subject not in listed)
        for email, password in self.owners:
            if retry(lambda: ct.Response(owner_signs_in(self.cluster.url, email, password), {}, b"")).status != 303:
                missing += 1
        for access in self.access_tokens:
            r = retry(lambda: call(self.cluster.url, "GET", "/.well-known/jmap", bearer=access,
                                   headers={"X-Atomic-Account-Id": self.oauth[2]}))
            if r.status != 200:
                missing += 1
        if self.last_refresh:  # the last rotation acknowledged is the grant's current one on the new primary
            r = retry(lambda: oauth_token(self.cluster.url, self.oauth[0], grant_type="refresh_token",
                                          refresh_token=self.last_refresh))
            if r.status != 200:
                missing += 1
        acknowledged = len(self.accounts) + len(self.messages) + len(self.owners) + len(self.access_tokens)
        return acknowledged, acknowledged - missing, missing


def retry(request, seconds=120):
    """A check's request, tried again while the cluster still answers 503 or drops the connection: for up to `seconds`
    (a loaded machine takes that long to settle after a failover; a request that passes returns at once)."""
    last = None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            last = request()
            if last.status != 503:
                return last
        except ct.NETWORK_ERRORS:
            pass
        time.sleep(0.25)
    expect(last is not None, "the cluster never answered")
    return last


def jmap_state(base, credentials):
    """The JMAP session's state on `base` for `credentials` (request headers, see ``agent_credentials``) once it
    answers (see ``retry``), failing with the answer when it is no 200."""
    session = retry(lambda: call(base, "GET", "/.well-known/jmap", headers=credentials))
    expect(session.status == 200, f"GET /.well-known/jmap answered {session.status}: {session.body[:200]!r}")
    return session.json()["state"]


# --- The tests ------------------------------------------------------------------------------------------------------

def test_lost_standby(cluster):
    account_id, address, password, token = new_account(cluster.url)
    proof = ct.mailbox_proof(cluster.base(1))
    timeouts = in_doubt_count(cluster, "timeout", instances=(1,))
    cluster.pg_ha("freeze-standby")
    try:
        started = time.monotonic()
        r = ct.mailbox_create(cluster.base(1), ct.mailbox_address(), "failover-pw-1", proof)
        waited = time.monotonic() - started
        expect(r.status == 503 and ct.plain_error(r) is not None, f"a sign-up with the standby frozen: {r}")
        # The commit timeout answered it (counted by its reason on the instance that took it), not a hang until the
        # thaw. At least one: HAProxy's /readyz probes are writes too, and time out meanwhile (CI, stop 79: 5 counted
        # on both instances). The wall-clock bound is loose, as a busy machine adds seconds of its own.
        timed_out = in_doubt_count(cluster, "timeout", instances=(1,)) - timeouts
        expect(timed_out >= 1 and waited < COMMIT_TIMEOUT + 20,
               f"the sign-up answered after {waited:.1f} s (timeout {COMMIT_TIMEOUT} s), {timed_out} timeouts counted")
        reads = [call(cluster.base(i), "GET", f"/api/accounts/{account_id}", bearer=token) for i in (1, 2, 1, 2)]
        expect(all(r.status == 200 for r in reads), f"reads with the standby frozen: {reads}")
        ready = call(cluster.base(2), "GET", "/readyz")
        expect(ready.status == 503, f"/readyz with no write confirmed: {ready}")
    finally:
        cluster.pg_ha("thaw-standby")
    thawed = time.monotonic()
    r = retry(lambda: ct.mailbox_create(cluster.base(1), ct.mailbox_address(), "failover-pw-1",
                                        ct.mailbox_proof(cluster.base(1))))
    expect(r.status == 201, f"a sign-up after the thaw: {r}")
    signed_up = time.monotonic() - thawed
    ready = retry(lambda: call(cluster.base(2), "GET", "/readyz"))
    expect(ready.status == 200, f"/readyz after the thaw: {ready}")
    return (f"write 503 after {waited:.2f} s (timeout {COMMIT_TIMEOUT} s), 4 reads 200 and /readyz 503 meanwhile; "
            f"thawed, a sign-up 201 after {signed_up:.2f} s and /readyz 200, no restart")


class StandbyWaitCanceler:
    """A session on the primary that, every 10 ms while it is open, cancels each backend of Postern's waiting for the
    synchronous standby and names it in a notice. It polls inside PostgreSQL: a poll by a psql started each time from
    the test came too late for a sign-up's wait on a busy machine (CI, stop 78), and the commit timeout answered it."""

    NAME = "failover-canceler"  # its application_name
    LOOP = ("DO $$ DECLARE w record; BEGIN FOR i IN 1..12000 LOOP "  # 120 s at most
            "PERFORM pg_stat_clear_snapshot(); "  # else pg_stat_activity is read once per transaction
            "FOR w IN SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND application_name = 'postern' "
            "LOOP PERFORM pg_cancel_backend(w.pid); RAISE NOTICE 'canceled %', w.pid; END LOOP; "
            "PERFORM pg_sleep(0.01); END LOOP; END $$")

    def __init__(self, cluster):
        self.cluster, self.canceled = cluster, set()

    def __enter__(self):
        self.process = subprocess.Popen(self.cluster.primary_psql(self.LOOP), env=dict(os.environ, PGAPPNAME=self.NAME),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while self.cluster.primary_sql(f"SELECT count(*) FROM pg_stat_activity WHERE application_name = '{self.NAME}' "
                                       "AND state = 'active'") != "1":
            expect(self.process.poll() is None and time.monotonic() < deadline,
                   f"the canceler's session never started: {self.process.stderr.read() if self.process.poll() else ''}")
            time.sleep(0.05)
        return self

    def __exit__(self, *_):
        self.cluster.primary_sql(f"SELECT pg_cancel_backend(pid) FROM pg_stat_activity "
                                 f"WHERE application_name = '{self.NAME}'")
        _, said = self.process.communicate(timeout=30)
        self.canceled = set(re.findall(r"NOTICE:\s+canceled (\d+)", said))  # a backend is canceled until it answers


def test_canceled_wait(cluster):
    before = in_doubt_count(cluster, "replication_canceled")
    timeouts = in_doubt_count(cluster, "timeout")
    proof = ct.mailbox_proof(cluster.base(2))
    client, refresh, inbox = oauth_grant(cluster)
    # Every backend of Postern's waiting for the standby is canceled until both answer: theirs among them. The canceler
    # runs before the freeze, or a /readyz probe of HAProxy's (a write) could wait out the commit timeout while the
    # canceler's session starts on a busy machine.
    with StandbyWaitCanceler(cluster) as canceler, concurrent.futures.ThreadPoolExecutor(2) as pool:
        cluster.pg_ha("freeze-standby")
        try:
            started = time.monotonic()
            signup = pool.submit(ct.mailbox_create, cluster.base(2), ct.mailbox_address(), "failover-pw-1", proof)
            rotation = pool.submit(oauth_token, cluster.base(1), client, grant_type="refresh_token",
                                   refresh_token=refresh)
            r, refreshed = signup.result(), rotation.result()
            answered = time.monotonic() - started
        finally:
            cluster.pg_ha("thaw-standby")
    expect(canceler.canceled, "no backend of Postern was seen waiting for the standby")
    expect(r.status == 503, f"the client of the canceled commit got {r}, not 503")
    expect(refreshed.status == 503, f"the refresh whose commit was canceled got {refreshed}, not 503")
    timed_out = in_doubt_count(cluster, "timeout") - timeouts
    expect(not timed_out, f"{timed_out} commits answered by the timeout's 503, not the cancel's")
    counted = in_doubt_count(cluster, "replication_canceled") - before
    expect(counted >= 2, f"{counted} canceled commits counted in postern_storage_commits_in_doubt_total, not 2")
    # The rotation committed on the primary (only the wait was canceled): the client, told 503, retries with the token
    # it has after Retry-After, and must get a new one, not a refusal that ends (or revokes) its grant.
    committed = cluster.primary_sql(
        f"SELECT count(*) FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id "
        f"WHERE g.client_id = '{client}' AND r.superseded_at IS NOT NULL")
    wait = retry_after(refreshed)
    expect(wait > 1, f"the refresh's 503 asks for no wait past the race window (Retry-After {wait})")
    time.sleep(wait)
    again = retry(lambda: oauth_token(cluster.url, client, grant_type="refresh_token", refresh_token=refresh))
    expect(again.status == 200, f"the retry of the in-doubt refresh (its rotation committed: {committed}): {again}")
    session = call(cluster.url, "GET", "/.well-known/jmap", bearer=again.json()["access_token"],
                   headers={"X-Atomic-Account-Id": inbox})
    expect(session.status == 200, f"the retried refresh's access token: {session}")
    following = oauth_token(cluster.url, client, grant_type="refresh_token", refresh_token=again.json()["refresh_token"])
    expect(following.status == 200, f"a refresh with the retry's token: {following}")
    return (f"canceled while waiting: sign-up and refresh 503 after {answered:.2f} s (commit timeout "
            f"{COMMIT_TIMEOUT} s, none timed out), {len(canceler.canceled)} waits canceled, {counted} counted; the "
            f"refresh, whose rotation had committed ({committed} superseded), retried with the same token after "
            f"Retry-After {wait:g} s: 200, and its tokens work")


def agent_credentials(cluster):
    """A new agent's inbox and the request headers that open it: (its address, headers). Its capability token lasts
    two minutes (AgentAuthConfiguration.capabilityTTL): enough for a check that ends within seconds of it."""
    _, _, session = ct.agent_signup(cluster.base(1))
    token = ct.capability(cluster.base(1), session).bearer()
    return ct.jwt_parts(token)[1]["inboxId"], {"Authorization": "Bearer " + token}


def grant_credentials(cluster):
    """A new OAuth grant's new inbox and the request headers that open it: (its address, headers), an access token
    and the inbox's X-Atomic-Account-Id. The token lasts 15 minutes (OAuthResourceConfiguration.accessTokenLifetime):
    for a stream that must outlast events whose length depends on the machine's load, as a capability token's two
    minutes do not (the stream checks its bearer before each event and ends once it has expired)."""
    _, tokens, inbox = oauth_consent(cluster)
    credentials = {"Authorization": "Bearer " + tokens["access_token"], "X-Atomic-Account-Id": inbox}
    session = call(cluster.url, "GET", "/.well-known/jmap", headers=credentials)
    expect(session.status == 200, f"GET /.well-known/jmap with the grant's access token: {session}")
    return session.json()["username"], credentials


def open_event_source(cluster, i, close_after_state=True, credentials=None):
    """A JMAP event source on instance `i`, open once the instance counts it: (its inbox address, the request headers
    that open the inbox, the connection, the response). `credentials`: (address, headers) of ``agent_credentials`` or
    ``grant_credentials``, a new agent's by default. `close_after_state`: closeafter=state (the response ends after
    the first state event), else it stays open."""
    address, credentials = credentials or agent_credentials(cluster)
    state = call(cluster.base(i), "GET", "/.well-known/jmap", headers=credentials).json()["state"]
    stream = http.client.HTTPConnection(*ct.split_url(cluster.base(i)), timeout=45)
    stream.request("GET", f"/jmap/eventsource?types=*&closeafter={'state' if close_after_state else 'no'}&ping=0",
                   headers=credentials | {"Last-Event-ID": state, "Accept": "text/event-stream"})
    response = stream.getresponse()
    expect(response.status == 200, f"the event source on instance {i}: {response.status}")
    deadline = time.monotonic() + 20
    while not re.search(r"^postern_jmap_event_streams [1-9]", call(cluster.base(i), "GET", "/metrics").body.decode(),
                        re.M):
        expect(time.monotonic() < deadline, f"instance {i} never opened the stream")
        time.sleep(0.02)
    return address, credentials, stream, response


class OpenDoors:
    """The push doors held open on instance 2 through the kill (issue 82 item 4), each of which must go on and report
    the delivery made after the promotion: Mailpit's events socket (operator's token, read in a thread of its own so
    the load's events never fill it), an IMAP IDLE session, the operator's wait and a mail.cx long poll."""

    def __init__(self, cluster, subject):
        self.cluster, self.subject, self.base = cluster, subject, cluster.base(2)
        _, self.idle_address, password, _ = ct.mailbox_account(cluster.url, password="failover-pw-1", v1=True)
        self.mailcx_address = f"f{secrets.token_hex(6)}@{MAILCX_DOMAIN}"
        self.events = ct.ws_open(self.base, "/mailpit/api/events", {"Authorization": "Bearer " + OPERATOR_TOKEN})
        self.events.settimeout(90)
        self.events_told, self.events_error = threading.Event(), None
        threading.Thread(target=self.read_events, daemon=True).start()
        self.idle = ct.LineSession(int(cluster.env["INSTANCE_2_IMAP_PORT"]), "127.0.0.2")
        self.idle.until(rb"^\* OK[^\r]*\r\n")
        self.idle.ask(f'i1 LOGIN "{self.idle_address}" "{password}"', rb"i1 OK[^\r]*\r\n")
        selected = self.idle.ask("i2 SELECT INBOX", rb"i2 OK[^\r]*\r\n")
        expect(b"* 0 EXISTS" in selected, f"SELECT on instance 2: an empty INBOX ({selected!r})")
        self.idle.ask("i3 IDLE", rb"\+ [^\r]*\r\n")
        self.pool = concurrent.futures.ThreadPoolExecutor(2)
        self.operator_wait = self.long_poll = None

    @property
    def addresses(self):
        return [self.idle_address, self.mailcx_address]

    def read_events(self):
        try:
            while True:
                event = json.loads(ct.ws_read_text(self.events))
                if event.get("Type") == "new" and (event.get("Data") or {}).get("Subject") == self.subject:
                    self.events_told.set()
                    return
        except Exception as error:  # noqa: BLE001 - a close frame (1011), a reset, a timeout: said by check()
            self.events_error = error

    def park(self):
        """The operator's wait and mail.cx's long poll, parked before the kill as /messages/wait is."""
        self.operator_wait = self.pool.submit(
            call, self.base, "GET",
            f"/api/operator/messages/wait?to={urllib.parse.quote(self.idle_address)}&timeout=30",
            bearer=OPERATOR_TOKEN, timeout=45)
        self.long_poll = self.pool.submit(self.poll_mailcx)

    def poll_mailcx(self):
        """mail.cx's inbox polled as its clients poll it (again after each 204): every status, and the 200's body."""
        statuses, deadline = [], time.monotonic() + 90
        while time.monotonic() < deadline:
            r = call(self.base, "GET", f"/mailcx/v1/inbox/{urllib.parse.quote(self.mailcx_address)}", timeout=45)
            statuses.append(r.status)
            if r.status != 204:
                return statuses, r
        return statuses, None

    def check(self):
        """Each door reported the late delivery: a list of what each did, or Failure."""
        told = self.events_told.wait(60)
        expect(told and self.events_error is None,
               f"Mailpit's events socket on instance 2: {self.events_error or 'no new event for the late delivery'}")
        self.idle.until(rb"\* 1 EXISTS\r\n", seconds=60)
        self.idle.ask("DONE", rb"i3 OK[^\r]*\r\n")
        waited = self.operator_wait.result()
        expect(waited.status == 200 and (waited.json() or {}).get("subject") == self.subject,
               f"the operator's wait parked on instance 2 before the kill: {waited}")
        statuses, polled = self.long_poll.result()
        subjects = [e.get("subject") for e in ((polled.json() or {}).get("emails") or [])] if polled else []
        expect(polled is not None and polled.status == 200 and self.subject in subjects,
               f"mail.cx's long poll on instance 2 (statuses {statuses}): {polled}")
        return f"Mailpit events, IMAP IDLE, the operator's wait and mail.cx's long poll ({len(statuses)} polls) told it"

    def close(self):
        for closing in (self.events.close, self.idle.close):
            try:
                closing()
            except OSError:
                pass
        self.pool.shutdown(wait=False)


def test_zero_loss(cluster):
    recipient = new_account(cluster.url)
    waiter_account = new_account(cluster.url)
    pushed_address, pushed_credentials, stream, pushed = open_event_source(cluster, 2)
    load = Load(cluster, recipient, oauth_grant(cluster))
    moments = {}
    subject = "after failover"
    doors = OpenDoors(cluster, subject)

    def kill():
        cluster.pg_ha("kill-primary")
        moments["kill"] = time.monotonic()  # once the script returns: by then every process of the primary is gone
        cluster.pg_ha("promote")
        moments["promoted"] = time.monotonic()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        account_id, address, _, token = waiter_account

        def park():
            # A wait lasts at most 30 s: parked 2 s before the kill, it outlasts the promotion and the delivery, which
            # follows the promotion under the load rather than after it, so a slow machine's failover still fits.
            moments["waiting"] = pool.submit(call, cluster.base(2), "GET",
                                             f"/api/accounts/{account_id}/messages/wait?timeout=30", bearer=token,
                                             timeout=45)
            doors.park()

        def deliver_late():
            # Delivered only after the promotion (the kill's event returns once it is done), by another process
            # (`postern mail deliver` with instance 1's settings): instance 2 hears of it through its LISTEN
            # connection, which must have followed the new primary.
            for to in (address, pushed_address, *doors.addresses):
                message = os.path.join(cluster.dir, "late.eml")
                with open(message, "w") as f:
                    f.write(f"From: late@example.org\r\nTo: {to}\r\nSubject: {subject}\r\n\r\nx\r\n")
                cluster.postern("mail", "deliver", "--to", to, message)
            moments["delivered"] = time.monotonic()

        load.run(LOAD_SECONDS, [(KILL_AT_SECONDS - 2, park), (KILL_AT_SECONDS, kill),
                                (KILL_AT_SECONDS + 2, deliver_late)])
        woken = moments["waiting"].result()
        try:
            body = pushed.read().decode()  # closeafter=state: the response ends after the first state event
            others = doors.check()
        finally:
            stream.close()
            doors.close()
    now = jmap_state(cluster.base(1), pushed_credentials)
    acknowledged, found, lost = load.check()
    recovered = load.first_success_after(moments["kill"])
    expect(recovered is not None, "no write succeeded after the kill")
    expect(lost == 0, f"{lost} acknowledged writes are missing after the failover ({acknowledged} acknowledged)")
    expect(acknowledged > 0 and len(load.accounts) > 0 and len(load.messages) > 0 and len(load.owners) > 0
           and len(load.access_tokens) > 0, "a kind of write acknowledged nothing")
    expect(not load.refused_refreshes, f"a refresh retried after a 503 was refused: {load.refused_refreshes}")
    expect(woken.status == 200 and (woken.json() or {}).get("subject") == subject,
           f"the wait parked on instance 2 before the kill: {woken}")
    expect(body.startswith("event: state\nid: " + now + "."),
           f"the event source opened on instance 2 before the kill, at the state {now} after the delivery: {body!r}")
    return (f"acknowledged {acknowledged} ({len(load.accounts)} sign-ups, {len(load.messages)} messages, "
            f"{len(load.owners)} owner sign-ups, {len(load.access_tokens)} refreshes), found {found}, "
            f"lost {lost}, {load.failures} refused in the window; first 2xx {recovered:.2f} s after the kill "
            f"(promotion took {moments['promoted'] - moments['kill']:.2f} s); the parked wait and the JMAP event source "
            f"on instance 2 woke on a delivery after the promotion; {others}")


def test_async_control(cluster):
    recipient = new_account(cluster.url)
    load = Load(cluster, recipient)

    def kill():
        cluster.pg_ha("kill-primary")
        cluster.pg_ha("promote")

    load.run(6, [(1.5, lambda: cluster.pg_ha("freeze-standby")), (3.5, kill)])
    acknowledged, found, lost = load.check()
    expect(lost > 0, f"asynchronous replication lost nothing of {acknowledged}: this suite could not see a loss")
    return f"asynchronous: acknowledged {acknowledged}, found {found}, lost {lost} (the check sees loss)"


def keep_logs(cluster, label):
    os.makedirs(ARTIFACTS, exist_ok=True)
    for i in (1, 2):
        path = cluster.env.get(f"INSTANCE_{i}_LOG")
        if path and os.path.exists(path):
            subprocess.run(["cp", path, os.path.join(ARTIFACTS, f"{label}-instance-{i}.log")], check=False)
    for name in ("primary", "standby"):
        path = os.path.join(cluster.env.get("PG_DIR", "/nonexistent"), name, "server.log")
        if os.path.exists(path):
            subprocess.run(["cp", path, os.path.join(ARTIFACTS, f"{label}-{name}.log")], check=False)


def main():
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    workdir = tempfile.mkdtemp(prefix="postern-failover-")
    os.chmod(workdir, 0o711)
    results = []
    everything = time.monotonic()

    def report(name, ok, seconds, detail):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'}  {name}  ({seconds:.1f} s)  {detail}", flush=True)

    plan = [("pg-ha", [("lost standby: 503 within the commit timeout, reads go on, thawed without a restart",
                        test_lost_standby),
                       ("canceled wait for the standby: 503, never 2xx, counted in doubt", test_canceled_wait),
                       ("kill -9 of the primary under load: zero acknowledged writes lost, push follows", test_zero_loss)]),
            ("pg-ha-async", [("control: asynchronous replication loses acknowledged writes", test_async_control)])]
    try:
        for database, tests in plan:
            cluster = HACluster(os.path.join(workdir, database), database)
            started = time.monotonic()
            try:
                cluster.start()
                report(f"scripts/cluster start on scripts/pg-ha ({database})", True, time.monotonic() - started,
                       cluster.env["POSTERN_DATABASE_URL"])
                for name, function in tests:
                    started = time.monotonic()
                    try:
                        detail = function(cluster)
                        report(name, True, time.monotonic() - started, detail)
                    except Exception as error:  # noqa: BLE001 - a test's failure, whatever it is
                        message = str(error) if isinstance(error, Failure) else traceback.format_exc(limit=4)
                        report(name, False, time.monotonic() - started, message)
                if not all(results):
                    keep_logs(cluster, database)
            except Failure as error:
                report(f"scripts/cluster start ({database})", False, time.monotonic() - started, str(error))
            finally:
                cluster.stop()
    finally:
        subprocess.run(["rm", "-rf", workdir], check=False)
    print(f"failover-tests: {sum(results)} of {len(results)} passed in {time.monotonic() - everything:.1f} s",
          flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
