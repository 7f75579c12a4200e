#!/usr/bin/env python3
"""kill -9 of `postern serve` at random moments during a signup storm on both proof-of-work surfaces.

Each of KILL9_ROUNDS rounds (default 50) starts the server on the same data directory, then:
  1. checks the database after the previous kill: `PRAGMA integrity_check` is ok; every signup the
     client saw acknowledged (a 2xx answer read) is there, with the API key digest (agent) or its password
     verifier (mailbox: an Argon2id hash, or Mail.td 2.x's auth-key verifier); the accounts acknowledged since the last verification plus a random sample of the
     older ones log in over HTTP (agent: POST /api/v1/session with the API key; mailbox: POST
     /api/token), and every 10th round and the last, every acknowledged account logs in;
  2. checks the signups that were in flight when the server died (sent, answer not read): each is
     absent or whole. A mailbox one that exists logs in with its password; an agent one that exists
     has a complete row (its key was never seen, so it cannot log in, but it must not be half-written);
  3. storms signups from agent and mailbox client threads and kills the server with SIGKILL after a
     random 0.3 to 2.5 s.
After the last round the server is restarted once more for the final full verification and stopped
with SIGTERM. Difficulties are 0 and rate limits off, so each signup costs one scrypt or SHA-256.
"""
import hashlib
import http.client
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in Tests/Soak
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soaklib as F  # noqa: E402

ROUNDS = int(os.environ.get("KILL9_ROUNDS", "50"))
SAMPLE = 20
AGENT_THREADS, MAILBOX_THREADS = 2, 3
PASSWORD = "storm-password-1"
NETWORK_ERRORS = (OSError, http.client.HTTPException, RuntimeError, ValueError, KeyError)


class Ledger:
    """What the clients know: acknowledged accounts, and signups whose answer never came."""

    def __init__(self):
        self.lock = threading.Lock()
        self.agents = {}  # username -> apiKey, acknowledged
        self.mailboxes = set()  # address, acknowledged
        self.agent_unknown = set()  # username: sent, no answer
        self.mailbox_unknown = set()  # address: sent, no answer
        self.verified_agents = set()
        self.verified_mailboxes = set()
        self.refused = {}  # unexpected answers: "surface status" -> count
        self.agent_unknown_seen = 0
        self.mailbox_unknown_seen = 0
        self.unknown_present = 0  # in flight at a kill, yet committed (and whole)


def agent_signup(conn, ledger):
    """One agent signup on `conn`: (name, prove, submit, its unknown set) for `storm_client`."""
    username = F.agent_username()

    def submit(solved):
        status, headers, raw = F.agent_post_session(conn, solved, {"username": username})
        body = json.loads(raw)
        if status == 201 and headers.get("authorization", "").startswith("Bearer ") and body.get("apiKey"):
            return lambda: ledger.agents.__setitem__(username, body["apiKey"])
        return status

    return username, lambda: F.agent_solved_challenge(conn), submit, ledger.agent_unknown


def mailbox_signup(conn, ledger):
    """One mailbox signup on `conn`: (name, prove, submit, its unknown set) for `storm_client`."""
    address = F.mailbox_address()

    def submit(proof):
        status, _, raw = F.mailbox_create(conn, address, PASSWORD, proof)
        body = json.loads(raw)
        if status == 201 and body.get("address") == address and body.get("token"):
            return lambda: ledger.mailboxes.add(address)
        return status

    return address, lambda: F.mailbox_solved_challenge(conn), submit, ledger.mailbox_unknown


def storm_client(surface, signup, server, ledger, stop):
    """Signs up on one surface until `stop`: an acknowledged signup goes into the ledger, one whose
    answer never came (the server was killed) into its unknown set, any other answer into `refused`."""
    conn = None
    while not stop.is_set():
        sent = False
        try:
            conn = conn or server.connection(timeout=10)
            name, prove, submit, unknown = signup(conn, ledger)
            proof = prove()
            sent = True
            outcome = submit(proof)
            with ledger.lock:
                if callable(outcome):
                    outcome()
                else:
                    key = f"{surface} {outcome}"
                    ledger.refused[key] = ledger.refused.get(key, 0) + 1
        except NETWORK_ERRORS:
            if sent:
                with ledger.lock:
                    unknown.add(name)
            if conn:
                conn.close()
            conn = None
            time.sleep(0.02)


def agent_login(server, username, api_key):
    with server.connected() as conn:
        status, headers, raw = F.agent_post_session(conn, F.agent_solved_challenge(conn), {"apiKey": api_key})
    body = json.loads(raw)
    F.expect(status == 200 and headers.get("authorization", "").startswith("Bearer ")
             and body.get("inbox", "").startswith(username + "@"),
             f"acknowledged agent {username} cannot log in: HTTP {status} {raw[:200]!r}")


def mailbox_login(server, address):
    with server.connected() as conn:
        status, _, raw = F.mailbox_token(conn, address, PASSWORD)
    if status != 200:
        return False, f"HTTP {status} {raw[:200]!r}"
    body = json.loads(raw)
    return bool(body.get("token")), raw[:200]


def verify(server, ledger, everyone):
    """Step 1 and 2 of a round (see the module doc); returns how many HTTP logins it made."""
    db = server.database
    check = F.integrity(db)
    F.expect(check == "ok", f"integrity_check after kill -9: {check}")

    agents = dict(F.query(db, "SELECT username, hex(api_key_digest) FROM agent_accounts"))
    # An account holds either a legacy Argon2id hash or Mail.td 2.x's auth-key verifier (then the hash is empty).
    mailboxes = {address: digest.startswith("$argon2id$") or bool(verifier) for address, digest, verifier in
                 F.query(db, "SELECT address, password_hash, length(auth_verifier) FROM mailbox_accounts")}
    for username, api_key in ledger.agents.items():
        digest = hashlib.sha256(api_key.encode()).hexdigest().upper()
        F.expect(agents.get(username) == digest, f"acknowledged agent {username} lost or changed after kill -9")
    for address in ledger.mailboxes:
        F.expect(mailboxes.get(address, False),
                 f"acknowledged mailbox {address} lost or half-written after kill -9")

    # Over HTTP: the new ones and a sample of the rest, or everyone.
    fresh_agents = [u for u in ledger.agents if u not in ledger.verified_agents]
    fresh_mailboxes = [a for a in ledger.mailboxes if a not in ledger.verified_mailboxes]
    if everyone:
        agent_logins, mailbox_logins = list(ledger.agents), list(ledger.mailboxes)
    else:
        old_agents = sorted(ledger.verified_agents)
        old_mailboxes = sorted(ledger.verified_mailboxes)
        agent_logins = fresh_agents + random.sample(old_agents, min(SAMPLE, len(old_agents)))
        mailbox_logins = fresh_mailboxes + random.sample(old_mailboxes, min(SAMPLE, len(old_mailboxes)))
    for username in agent_logins:
        agent_login(server, username, ledger.agents[username])
    for address in mailbox_logins:
        ok, detail = mailbox_login(server, address)
        F.expect(ok, f"acknowledged mailbox {address} cannot log in: {detail}")
    ledger.verified_agents.update(fresh_agents)
    ledger.verified_mailboxes.update(fresh_mailboxes)

    # In flight at the kill: absent, or whole.
    whole_agents = {u for (u,) in F.query(
        db, "SELECT username FROM agent_accounts WHERE length(id) = 36 AND length(api_key_digest) = 32 "
            "AND created_at > 0 AND revoked_at IS NULL")}
    for username in ledger.agent_unknown:
        F.expect(username not in agents or username in whole_agents,
                 f"agent {username} (in flight at the kill) exists half-written")
    for address in ledger.mailbox_unknown:
        if address in mailboxes:
            ok, detail = mailbox_login(server, address)
            F.expect(ok, f"mailbox {address} (in flight at the kill) exists but cannot log in: {detail}")
    ledger.agent_unknown_seen += len(ledger.agent_unknown)
    ledger.mailbox_unknown_seen += len(ledger.mailbox_unknown)
    ledger.unknown_present += len([u for u in ledger.agent_unknown if u in agents])
    ledger.unknown_present += len([a for a in ledger.mailbox_unknown if a in mailboxes])
    ledger.agent_unknown.clear()
    ledger.mailbox_unknown.clear()
    return len(agent_logins) + len(mailbox_logins)


def storm(server, ledger, seconds):
    stop = threading.Event()
    threads = [threading.Thread(target=storm_client, daemon=True,
                                args=("agent", agent_signup, server, ledger, stop))
               for _ in range(AGENT_THREADS)]
    threads += [threading.Thread(target=storm_client, daemon=True,
                                 args=("mailbox", mailbox_signup, server, ledger, stop))
                for _ in range(MAILBOX_THREADS)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    server.kill(signal.SIGKILL)
    F.expect(server.process.returncode == -signal.SIGKILL, f"postern ended with {server.process.returncode}")
    stop.set()
    for t in threads:
        t.join(timeout=30)
        F.expect(not t.is_alive(), "a storm client did not stop")


def main():
    data = tempfile.mkdtemp(prefix="postern-kill9-")
    ledger = Ledger()
    logins = 0
    try:
        for round_number in range(1, ROUNDS + 1):
            with F.Server(data, env=F.FAST_SIGNUPS).start() as server:
                logins += verify(server, ledger, everyone=round_number % 10 == 0)
                storm(server, ledger, random.uniform(0.3, 2.5))
            F.log(f"round {round_number}: acknowledged agents={len(ledger.agents)} "
                  f"mailboxes={len(ledger.mailboxes)}; in flight at the kill: "
                  f"agents={len(ledger.agent_unknown)} mailboxes={len(ledger.mailbox_unknown)}")
        with F.Server(data, env=F.FAST_SIGNUPS).start() as server:
            logins += verify(server, ledger, everyone=True)
            server.stop()
        F.expect(len(ledger.agents) >= ROUNDS and len(ledger.mailboxes) >= ROUNDS,
                 f"the storm acknowledged too few signups to mean anything: agents={len(ledger.agents)} "
                 f"mailboxes={len(ledger.mailboxes)}")
        F.expect(not ledger.refused, f"signups refused during the storm: {ledger.refused}")
        F.log(f"rounds={ROUNDS} acknowledged agents={len(ledger.agents)} mailboxes={len(ledger.mailboxes)}, "
              f"all present after every kill and logged in at the end; HTTP logins={logins}; "
              f"in flight at a kill: agents={ledger.agent_unknown_seen} "
              f"mailboxes={ledger.mailbox_unknown_seen}, of which committed and whole={ledger.unknown_present}")
    except F.CheckFailed:
        print(f"{F.CHECK}: data directory kept at {data}", file=sys.stderr)
        raise
    shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    F.run_check(main)
