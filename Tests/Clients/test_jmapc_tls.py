"""jmapc (PyPI), unmodified, against Postern's JMAP behind a TLS-terminating proxy: jmapc speaks https only, so the
test makes a self-signed pair with openssl and starts HAProxy on loopback in front of `postern serve` (HAProxy is
installed with apt through scripts/bootstrap when missing, never assumed running). Through the proxy the client reads
the session (with its eventSourceUrl), queries, sends a message (Email/set + EmailSubmission/set), follows
Email/changes, and receives a push event (RFC 8620 7.3 StateChange) after an SMTP delivery from smtplib.

Self-contained: installs jmapc into .build/client-sdks/ (pip --target), signs two agents up through the agent surface
(proof of work at difficulty 2), runs against .build/debug/postern (or $POSTERN_BIN).
"""

import os
import queue
import shutil
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
from email.message import EmailMessage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, agent_signup, free_port, http, install_packages, postern

VERSION = "0.4.0"
check = Checks()


def install():
    install_packages("jmapc-" + VERSION, ["jmapc==" + VERSION], ["jmapc"])


def tls_proxy(work, port, backend_port):
    """Starts HAProxy terminating TLS on loopback `port` in front of `backend_port`; returns (process, certificate
    path)."""
    if not shutil.which("haproxy"):
        subprocess.run([os.path.join(ROOT, "scripts", "bootstrap"), "haproxy"], check=True)
    key, cert, pair = (os.path.join(work, name) for name in ("key.pem", "cert.pem", "pair.pem"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", key, "-out",
                    cert, "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    with open(pair, "w") as out:
        out.write(open(cert).read() + open(key).read())
    config = os.path.join(work, "haproxy.cfg")
    with open(config, "w") as out:
        out.write(f"""global
    maxconn 256
defaults
    mode http
    timeout connect 5s
    timeout client 120s
    timeout server 120s
frontend tls
    bind 127.0.0.1:{port} ssl crt {pair}
    default_backend postern
backend postern
    server postern 127.0.0.1:{backend_port}
""")
    process = subprocess.Popen(["haproxy", "-db", "-f", config], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, cert
        except OSError:
            if process.poll() is not None:
                raise SystemExit("haproxy exited: " + process.stderr.read().decode())
            time.sleep(0.05)
    raise SystemExit("haproxy did not listen")


def capability(base, session_jwt):
    status, head, _ = http(base, "POST", "/api/v1/capability", bearer=session_jwt)
    check(status == 200, f"capability token ({status})")
    return head.get("Authorization", " ").split(" ", 1)[1]


def metric(base, name):
    status, _, text = http(base, "GET", "/metrics")
    for line in text.splitlines() if status == 200 else []:
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def until(what, condition, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return check(False, what)


def run(base, tls_port):
    from jmapc import Client, EventSourceConfig, Ref
    from jmapc.methods import (EmailChanges, EmailGet, EmailQuery, EmailSet, EmailSubmissionSet, IdentityGet,
                               MailboxQuery)
    from jmapc.models import Email, EmailAddress, EmailBodyPart, EmailBodyValue, EmailSubmission, EmailQueryFilterCondition, MailboxQueryFilterCondition

    status, alice, alice_session = agent_signup(base, "alice-jmapc")
    check(status == 201, f"signup alice ({status})")
    status, bob, _ = agent_signup(base, "bob-jmapc")
    check(status == 201, f"signup bob ({status})")
    host = f"127.0.0.1:{tls_port}"
    client = Client.create_with_api_token(host=host, api_token=capability(base, alice_session))

    session = client.jmap_session
    check(session.api_url == f"https://{host}/jmap/api", f"session read through TLS: apiUrl {session.api_url}")
    check(session.event_source_url.startswith(f"https://{host}/jmap/eventsource?"),
          f"session names the event source: {session.event_source_url}")
    account = client.account_id

    inbox = client.request(MailboxQuery(filter=MailboxQueryFilterCondition(role="inbox"))).ids[0]
    drafts = client.request(MailboxQuery(filter=MailboxQueryFilterCondition(role="drafts"))).ids[0]
    empty = client.request(EmailQuery(filter=EmailQueryFilterCondition(in_mailbox=inbox)))
    check(empty.ids == [], f"Email/query of an empty inbox ({empty.ids})")
    state = client.request(EmailGet(ids=[])).state

    identity = client.request(IdentityGet()).data[0]
    draft = client.request(EmailSet(create={"draft": Email(
        mail_from=[EmailAddress(email=alice["inbox"])], to=[EmailAddress(email=bob["inbox"])],
        subject="hello over TLS", keywords={"$draft": True}, mailbox_ids={drafts: True},
        body_values={"body": EmailBodyValue(value="sent by jmapc")},
        text_body=[EmailBodyPart(part_id="body", type="text/plain")])}))
    draft_id = draft.created["draft"].id if draft.created and draft.created.get("draft") else None
    check(draft_id is not None, f"Email/set created the draft ({draft.not_created})")
    sent = client.request(EmailSubmissionSet(create={"send": EmailSubmission(identity_id=identity.id,
                                                                             email_id=draft_id)}))
    check(bool(sent.created and sent.created.get("send")), f"EmailSubmission/set sent it ({sent.not_created})")
    changes = client.request(EmailChanges(since_state=state))
    check(changes.old_state == state and changes.new_state != state, "Email/changes moves the state on")
    check(bool(changes.created or changes.updated), f"Email/changes names the draft and its sent copy "
                                                     f"({changes.created}, {changes.updated})")
    state = changes.new_state

    # A second client listens from the current state: no event until something changes.
    listener = Client.create_with_api_token(
        host=host, api_token=capability(base, alice_session), last_event_id=state,
        event_source_config=EventSourceConfig(types="*", closeafter="no", ping=0))
    events = queue.Queue()

    def listen():
        try:
            for event in listener.events:
                events.put(event)
        except Exception as error:  # the server stops at the end of the test
            events.put(error)

    threading.Thread(target=listen, daemon=True).start()
    until("the event stream opened", lambda: metric(base, "postern_jmap_event_streams") >= 1)
    check(events.empty(), "no event while nothing changed")

    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "carol@example.com", alice["inbox"], "pushed"
    message.set_content("delivered over SMTP")
    with smtplib.SMTP("127.0.0.1", base.smtp_port, timeout=30) as smtp:
        smtp.send_message(message)
    try:
        event = events.get(timeout=30)
    except queue.Empty:
        event = None
    check(event is not None and not isinstance(event, Exception), f"a push event after the SMTP delivery ({event})")
    if event is None or isinstance(event, Exception):
        return
    changed = event.data.changed.get(account)
    check(changed is not None and changed.email is not None and changed.email_delivery == changed.email,
          f"the StateChange names Email and EmailDelivery of the account ({changed})")
    # The id is the mail state, then (types=* watches EmailSubmission too) a dot and the EmailSubmission state.
    check(event.id.split(".")[0] == changed.email, f"the event id begins with the new state ({event.id})")
    after = client.request(EmailChanges(since_state=state))
    check(len(after.created) == 1 and after.new_state == changed.email,
          f"Email/changes from the old state finds the delivered message at the pushed state ({after.created})")
    got = client.request(EmailGet(ids=after.created, properties=["subject", "mailboxIds"]))
    check(got.data[0].subject == "pushed" and inbox in (got.data[0].mailbox_ids or {}), "it is the SMTP message")
    check(metric(base, 'postern_jmap_events_pushed_total{event="state"}') >= 1, "the push counter moved")


def main():
    install()
    work = tempfile.mkdtemp(prefix="postern-jmapc-")
    tls_port = free_port()
    env = {"POSTERN_AGENT_POW_DIFFICULTY": "2", "POSTERN_AGENT_POW_DYNAMIC": "off",
           "POSTERN_PUBLIC_URL": f"https://127.0.0.1:{tls_port}"}
    proxy = None
    try:
        with postern(env=env) as base:
            backend = int(base.rsplit(":", 1)[1])
            proxy, cert = tls_proxy(work, tls_port, backend)
            os.environ["REQUESTS_CA_BUNDLE"] = cert
            run(base, tls_port)
    finally:
        if proxy:
            proxy.terminate()
            proxy.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    check.finish("test_jmapc_tls")


if __name__ == "__main__":
    main()
