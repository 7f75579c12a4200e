#!/usr/bin/env python3
"""Helpers for scripts/bench that are awkward in bash: the command line over Tests/postern_testkit (the library the
tests share) and the load generators only the benchmarks use. Standard library only.

    bench-lib.py freeport [COUNT]
        print COUNT (default 1) distinct free loopback TCP ports, one a line
    bench-lib.py session BASE_URL USERNAME
        challenge -> real scrypt proof -> signup; print the session JWT from the response
        Authorization header
    bench-lib.py hammer BASE_URL CLIENTS SECONDS STOPFILE
        CLIENTS threads post signups to /api/v1/session, each with a fresh challenge and its real
        scrypt proof, until STOPFILE exists (or SECONDS + 60 have passed). Prints "ready ..." once
        hammering starts and one "done ..." line at the end.
    bench-lib.py idle HOST PORT COUNT PID REQUEST_LINE
        open COUNT keep-alive connections, send one request on each, read its answer, keep them
        open and idle, then print "answered=N rss_kib=K" with PID's VmRSS.
    bench-lib.py mailbox BASE_URL ADDRESS PASSWORD
        GET /api/challenge, solve its SHA-256 proof of work, POST /api/accounts; print "ID TOKEN"
    bench-lib.py argon2hash PASSWORD
        print an Argon2id hash of PASSWORD with Mail.td's default cost (m=19456 KiB, t=2, p=1, 16-byte
        salt, 32-byte hash) made with argon2-cffi; exit 3 when argon2-cffi is not importable
    bench-lib.py argon2speed SECONDS [M T P]
        one thread verifying an Argon2id hash of that cost through the system libargon2 (the library
        Postern links) for SECONDS; print "verify_per_cpu_s=R cpu_ms_per_verify=M verify_per_wall_s=W
        verifications=N"; exit 3 without libargon2
    bench-lib.py origin FILE
        serve FILE's bytes as text/plain on every GET from a loopback port (threads, HTTP/1.0);
        print "listening PORT", then serve until killed
    bench-lib.py startup ROUNDS DATA_DIR POSTERN [ARGS...]
        ROUNDS times: start `POSTERN serve --port 0 --data-dir DATA_DIR ARGS...`, read the port from its
        "listening" line, connect and time the first answered GET /healthz, SIGTERM it and wait; print
        "first_ms=F median_ms=M min_ms=N max_ms=X" (first: the first round, which creates the keys
        when DATA_DIR is new; the others: existing keys). Times from fork to the answer's first byte,
        without the polling and process launches a shell loop would add.
    bench-lib.py requests BASE_URL METHOD PATH BEARER BODY COUNT CONNECTIONS
        send COUNT requests over CONNECTIONS keep-alive connections (one request in flight on each;
        BEARER and BODY may be empty); exit 1 unless every answer is 2xx. For counts per request
        (scripts/instructions), where wrk's fixed duration gives no fixed count.
    bench-lib.py smtp-corpus PORT DIRECTORY COUNT
        send the first COUNT of DIRECTORY's .eml files (in name order, round robin when COUNT is larger) over
        one SMTP connection to 127.0.0.1:PORT, each to catch-all@example.net
    bench-lib.py oauth-tokens BASE_URL EMAIL PASSWORD COUNT
        register an OAuth client, sign in as the owner EMAIL and consent COUNT times through the forms
        (Tests/postern_testkit/forms.py), redeem each code; print the client id, then COUNT refresh
        tokens, one a line: each the head of its own grant's rotation chain
    bench-lib.py callgrind-top DUMP TOP DIVISOR
        the TOP functions of a callgrind dump by the instructions they executed themselves (calls to
        others not counted), each divided by DIVISOR (the requests it measured); mangled names, for
        swift demangle. callgrind_annotate 3.19 reads Swift's dumps as if every cost were inclusive.
"""
import hashlib
import http.client
import json
import os
import queue
import re
import resource
import secrets
import selectors
import socket
import sys
import threading
import time
from collections import Counter
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests"))
from postern_testkit import (  # noqa: E402  (the proofs of work, ports, the origin, the form driver)
    DEFAULT_SALT, FormDriver, free_ports, mailbox_nonce, origin_server, rss_kib, solve, split_url,
)

def die(msg):
    print("bench-lib: " + msg, file=sys.stderr)
    sys.exit(1)


def fetch_challenge(conn):
    conn.request("POST", "/api/v1/challenge", body=b"", headers={"Content-Length": "0"})
    resp = conn.getresponse()
    raw = resp.read()
    if resp.status != 200:
        raise RuntimeError(f"challenge: HTTP {resp.status}: {raw[:200]!r}")
    auth = resp.getheader("Authorization") or ""
    if not auth.startswith("Bearer "):
        raise RuntimeError("challenge: no Bearer token in the Authorization response header")
    body = json.loads(raw)
    return (auth[7:], body["challenge"], body.get("salt", DEFAULT_SALT),
            int(body.get("difficulty", 0)), body.get("scrypt") or {})


def post_session(conn, bearer, pow_hex, nonce, username):
    payload = json.dumps({"powHex": pow_hex, "nonce": nonce, "username": username}).encode()
    conn.request("POST", "/api/v1/session", body=payload,
                 headers={"Authorization": "Bearer " + bearer, "Content-Type": "application/json"})
    resp = conn.getresponse()
    raw = resp.read()
    return resp.status, resp.getheader("Authorization") or "", raw


def cmd_freeport(count):
    print("\n".join(map(str, free_ports(count))))


def cmd_session(base, username):
    conn = http.client.HTTPConnection(*split_url(base), timeout=30)
    try:
        bearer, pow_hex, nonce = solve(fetch_challenge(conn))
        status, auth, raw = post_session(conn, bearer, pow_hex, nonce, username)
    except (OSError, RuntimeError, ValueError, KeyError) as e:
        die(f"session: {e}")
    if status not in (200, 201) or not auth.startswith("Bearer "):
        die(f"session: HTTP {status}, Authorization {auth[:20]!r}: {raw[:300]!r}")
    print(auth[7:])


def cmd_hammer(base, clients, seconds, stopfile):
    host, port = split_url(base)
    nproc = os.cpu_count() or 1
    # Prepare most proofs before the measurement so the clients' own scrypt does not compete with the
    # server for the CPU while latency is measured. Enough for the server's scrypt rate (estimated from
    # ours, the same OpenSSL scrypt) over the window, with margin; clients fall back to computing
    # proofs live if the prepared ones run out, and report how many they did.
    t0 = time.perf_counter()
    hashlib.scrypt(b"calibrate:0", salt=DEFAULT_SALT.encode(), n=16384, r=8, p=1, dklen=64,
                   maxmem=128 * 1024 * 1024)
    per_proof = max(time.perf_counter() - t0, 0.005)
    want = int((seconds + 4) * nproc / per_proof * 1.3) + 2 * clients
    want = min(want, int(os.environ.get("BENCH_HAMMER_MAX_PREPARED", "4000")))
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        items = [fetch_challenge(conn) for _ in range(want)]
    except (OSError, RuntimeError, ValueError, KeyError) as e:
        die(f"hammer: {e}")
    conn.close()
    with Pool(nproc) as pool:
        prepared = pool.map(solve, items, chunksize=8)
    work = queue.SimpleQueue()
    for p in prepared:
        work.put(p)

    statuses = Counter()
    live = [0]
    errors = Counter()
    lock = threading.Lock()
    stop = threading.Event()
    deadline = time.monotonic() + seconds + 60

    def client():
        c = http.client.HTTPConnection(host, port, timeout=30)
        while not stop.is_set():
            try:
                try:
                    bearer, pow_hex, nonce = work.get_nowait()
                except queue.Empty:
                    bearer, pow_hex, nonce = solve(fetch_challenge(c))
                    with lock:
                        live[0] += 1
                status, _, _ = post_session(c, bearer, pow_hex, nonce, "h" + secrets.token_hex(8))
                with lock:
                    statuses[status] += 1
            except (OSError, RuntimeError, ValueError, KeyError, http.client.HTTPException) as e:
                with lock:
                    errors[type(e).__name__] += 1
                c.close()
                c = http.client.HTTPConnection(host, port, timeout=30)
                time.sleep(0.01)
        c.close()

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    start = time.monotonic()
    for t in threads:
        t.start()
    print(f"ready prepared={len(prepared)} per_proof_ms={per_proof * 1000:.1f}", flush=True)
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join(timeout=35)
    elapsed = time.monotonic() - start
    done = sum(statuses.values())
    status_text = ",".join(f"{k}:{v}" for k, v in sorted(statuses.items())) or "none"
    error_text = ",".join(f"{k}:{v}" for k, v in sorted(errors.items())) or "none"
    print(f"done sessions={done} per_s={done / elapsed:.1f} statuses={status_text} "
          f"live_proofs={live[0]} errors={error_text} seconds={elapsed:.1f}", flush=True)


def cmd_idle(host, port, count, pid, request_line):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
    request = (request_line + "\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n").encode()
    sel = selectors.DefaultSelector()
    socks = []
    for _ in range(count):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex((host, port))
        socks.append(s)
        sel.register(s, selectors.EVENT_WRITE)
    answered = 0
    pending = len(socks)
    deadline = time.monotonic() + 30
    while pending and time.monotonic() < deadline:
        for key, ev in sel.select(timeout=1):
            s = key.fileobj
            if ev & selectors.EVENT_WRITE:
                try:
                    s.send(request)
                    sel.modify(s, selectors.EVENT_READ)
                except OSError:
                    sel.unregister(s)
                    pending -= 1
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            sel.unregister(s)
            pending -= 1
            if data.startswith(b"HTTP/1.1 2") or data.startswith(b"HTTP/1.0 2"):
                answered += 1
    time.sleep(1)  # let the server settle with every connection open and idle
    alive = 0
    for s in socks:  # an idle keep-alive connection the server has not closed reads as EAGAIN
        try:
            alive += 1 if s.recv(1, socket.MSG_PEEK) else 0
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    rss = rss_kib(pid)
    print(f"answered={answered} open={alive} rss_kib={rss}")
    for s in socks:
        s.close()


def cmd_mailbox(base, address, password):
    conn = http.client.HTTPConnection(*split_url(base), timeout=30)
    try:
        conn.request("GET", "/api/challenge")
        resp = conn.getresponse()
        raw = resp.read()
        if resp.status != 200:
            die(f"mailbox: GET /api/challenge: HTTP {resp.status}: {raw[:200]!r}")
        challenge = json.loads(raw)
        payload = json.dumps({"address": address, "password": password,
                              "pow": {"id": challenge["id"], "nonce": mailbox_nonce(challenge)}}).encode()
        conn.request("POST", "/api/accounts", body=payload, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        raw = resp.read()
        if resp.status != 201:
            die(f"mailbox: POST /api/accounts: HTTP {resp.status}: {raw[:300]!r}")
        account = json.loads(raw)
        print(account["id"], account["token"])
    except (OSError, ValueError, KeyError, http.client.HTTPException) as e:
        die(f"mailbox: {e}")


ARGON2_M, ARGON2_T, ARGON2_P = 19456, 2, 1  # Mail.td's documented default cost (CONTRACT 2.2)


def cmd_argon2hash(password):
    try:
        from argon2.low_level import Type, hash_secret
    except ImportError:
        sys.exit(3)
    print(hash_secret(password.encode(), secrets.token_bytes(16), time_cost=ARGON2_T, memory_cost=ARGON2_M,
                      parallelism=ARGON2_P, hash_len=32, type=Type.ID).decode())


def cmd_argon2speed(seconds, m=ARGON2_M, t=ARGON2_T, p=ARGON2_P):
    import ctypes
    import ctypes.util
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("argon2") or "libargon2.so.1")
    except OSError:
        sys.exit(3)
    u32, size, cp = ctypes.c_uint32, ctypes.c_size_t, ctypes.c_char_p
    lib.argon2id_hash_encoded.argtypes = [u32, u32, u32, cp, size, cp, size, size, cp, size]
    lib.argon2id_verify.argtypes = [cp, cp, size]
    pwd, salt = b"test123", secrets.token_bytes(16)
    encoded = ctypes.create_string_buffer(256)
    rc = lib.argon2id_hash_encoded(t, m, p, pwd, len(pwd), salt, len(salt), 32,
                                   encoded, len(encoded))
    if rc != 0:
        die(f"argon2speed: argon2id_hash_encoded returned {rc}")
    n = 0
    t0, c0 = time.perf_counter(), time.thread_time()
    while True:
        if lib.argon2id_verify(encoded.value, pwd, len(pwd)) != 0:
            die("argon2speed: argon2id_verify failed on its own hash")
        n += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    cpu = time.thread_time() - c0
    # Per CPU-second, like the server CPU per request: other work on a shared machine stretches the
    # wall-clock rate but not the CPU time one verification takes.
    print(f"verify_per_cpu_s={n / cpu:.1f} cpu_ms_per_verify={cpu * 1000 / n:.2f} "
          f"verify_per_wall_s={n / elapsed:.1f} verifications={n}")


def cmd_origin(path):
    with open(path, "rb") as f:
        server = origin_server(f.read())
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


def cmd_requests(base, method, path, bearer, body, count, connections):
    host, port = split_url(base)
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
    if bearer:
        head += f"Authorization: Bearer {bearer}\r\n"
    payload = body.encode()
    if payload or method == "POST":
        head += "Content-Type: application/json\r\nAccept: application/json\r\n"
        head += f"Content-Length: {len(payload)}\r\n"
    request = (head + "\r\n").encode() + payload
    failures = []

    def client(n):
        s = socket.create_connection((host, port), timeout=60)
        reader = s.makefile("rb")
        for _ in range(n):
            s.sendall(request)
            status = reader.readline()
            length = 0
            while True:
                line = reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            reader.read(length)
            if not status.startswith(b"HTTP/1.1 2"):
                failures.append(status)
        s.close()

    threads = [threading.Thread(target=client, args=(count // connections + (i < count % connections),))
               for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        die(f"requests: {len(failures)} of {count} not 2xx, first: {failures[0]!r}")


def cmd_smtp_corpus(port, directory, count):
    import smtplib
    names = sorted(name for name in os.listdir(directory) if name.endswith(".eml"))
    messages = [open(os.path.join(directory, name), "rb").read() for name in names]
    with smtplib.SMTP("127.0.0.1", port, timeout=120) as smtp:
        for n in range(count):
            smtp.sendmail("bench@example.com", ["catch-all@example.net"], messages[n % len(messages)])


def cmd_startup(rounds, datadir, argv):
    import re
    import signal
    import subprocess
    env = dict(os.environ, POSTERN_SMTP_PORT="0", POSTERN_SANDBOX_SMTP_PORT="off")
    times = []
    for _ in range(rounds):
        t0 = time.monotonic()
        proc = subprocess.Popen([argv[0], "serve", "--port", "0", "--data-dir", datadir] + argv[1:],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        try:
            match = None
            while match is None:
                line = proc.stdout.readline().decode(errors="replace")
                if not line:
                    die("startup: postern exited before its listening line")
                match = re.search(r"listening on http://[^ ]*:(\d+)", line)
            port = int(match.group(1))
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                answer = s.recv(64)
            elapsed = (time.monotonic() - t0) * 1000
            if not answer.startswith(b"HTTP/1.1 200"):
                die(f"startup: /healthz answered {answer[:40]!r}")
            times.append(elapsed)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    rest = sorted(times[1:]) or times
    print(f"first_ms={times[0]:.0f} median_ms={rest[len(rest) // 2]:.0f} min_ms={rest[0]:.0f} max_ms={rest[-1]:.0f}")


def cmd_callgrind_top(path, top, divisor):
    def names():  # "(id) name" defines a compressed name, "(id)" refers to it; one table per kind of name
        table = {}

        def resolve(token):
            m = re.match(r"\((\d+)\)(?: (.*))?", token)
            if not m:
                return token
            if m.group(2):
                table[m.group(1)] = m.group(2)
            return table.get(m.group(1), token)
        return resolve

    name, object_name = names(), names()
    fn, obj, after_calls, own, by_object, first_event = None, None, False, {}, {}, 1
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("positions:"):  # "line", or "instr line": the first event follows them
                first_event = len(line.split()) - 1
            elif line.startswith("ob="):
                obj = object_name(line[3:])
            elif line.startswith("cob="):
                object_name(line[4:])
            elif line.startswith("fn="):
                fn = name(line[3:])
            elif line.startswith("cfn="):
                name(line[4:])
            elif line.startswith("calls="):
                after_calls = True  # the next cost line is the call's inclusive cost
            elif line[:1].isdigit() or line[:1] in ("+", "-", "*"):
                fields = line.split()
                if after_calls:
                    after_calls = False
                elif fn is not None and len(fields) > first_event:
                    own[fn] = own.get(fn, 0) + int(fields[first_event])
                    by_object[obj] = by_object.get(obj, 0) + int(fields[first_event])
    if by_object:
        print("by object: " + ", ".join(f"{os.path.basename(o or '?')} {cost // divisor}"
                                         for o, cost in sorted(by_object.items(), key=lambda item: -item[1])[:6]))
    for fn, cost in sorted(own.items(), key=lambda item: -item[1])[:top]:
        print(f"{cost // divisor:8d} {fn}")


def cmd_oauth_tokens(base, email, password, count):
    import base64
    import urllib.parse
    callback = "http://127.0.0.1:9/cb"
    driver = FormDriver(base)
    conn = http.client.HTTPConnection(*split_url(base), timeout=30)
    conn.request("GET", "/.well-known/oauth-authorization-server")
    issuer = json.loads(conn.getresponse().read())["issuer"]
    conn.request("POST", "/oauth/register", json.dumps({"redirect_uris": [callback]}),
                 {"Content-Type": "application/json"})
    client = json.loads(conn.getresponse().read())["client_id"]
    print(client)
    for k in range(count):
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": client, "redirect_uri": callback, "scope": "mail.read mail.send",
            "resource": issuer + "/jmap", "state": "bench", "code_challenge": challenge,
            "code_challenge_method": "S256"})
        # The first consent of a run makes an inbox (a new owner has none); the others pick it.
        location = driver.authorize("/oauth/authorize?" + query, email, password,
                                    new_inbox=None if k else "bench" + secrets.token_hex(4))
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query).get("code", [""])[0] or die(
            f"consent gave no code: {location}")
        conn.request("POST", "/oauth/token", urllib.parse.urlencode({
            "grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client,
            "code_verifier": verifier}), {"Content-Type": "application/x-www-form-urlencoded"})
        answer = json.loads(conn.getresponse().read())
        print(answer.get("refresh_token") or die(f"code exchange refused: {answer}"))


def main(argv):
    if len(argv) < 2:
        die(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "freeport" and len(args) <= 1:
        cmd_freeport(int(args[0]) if args else 1)
    elif cmd == "session" and len(args) == 2:
        cmd_session(args[0], args[1])
    elif cmd == "hammer" and len(args) == 4:
        cmd_hammer(args[0], int(args[1]), float(args[2]), args[3])
    elif cmd == "idle" and len(args) == 5:
        cmd_idle(args[0], int(args[1]), int(args[2]), int(args[3]), args[4])
    elif cmd == "mailbox" and len(args) == 3:
        cmd_mailbox(args[0], args[1], args[2])
    elif cmd == "argon2hash" and len(args) == 1:
        cmd_argon2hash(args[0])
    elif cmd == "argon2speed" and len(args) == 1:
        cmd_argon2speed(float(args[0]))
    elif cmd == "argon2speed" and len(args) == 4:
        cmd_argon2speed(float(args[0]), int(args[1]), int(args[2]), int(args[3]))
    elif cmd == "startup" and len(args) >= 3:
        cmd_startup(int(args[0]), args[1], args[2:])
    elif cmd == "requests" and len(args) == 7:
        cmd_requests(args[0], args[1], args[2], args[3], args[4], int(args[5]), int(args[6]))
    elif cmd == "callgrind-top" and len(args) == 3:
        cmd_callgrind_top(args[0], int(args[1]), max(1, int(args[2])))
    elif cmd == "smtp-corpus" and len(args) == 3:
        cmd_smtp_corpus(int(args[0]), args[1], int(args[2]))
    elif cmd == "oauth-tokens" and len(args) == 4:
        cmd_oauth_tokens(args[0], args[1], args[2], int(args[3]))
    elif cmd == "origin" and len(args) == 1:
        cmd_origin(args[0])
    else:
        die(__doc__)


if __name__ == "__main__":
    main(sys.argv)
