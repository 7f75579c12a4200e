"""Atomic Mail's official Python client and CLI, unmodified (vendored by `langchain-atomicmail` on PyPI), against a
real Postern by changing only its URLs (ATOMIC_MAIL_AUTH_URL and ATOMIC_MAIL_API_URL): its whole `register` (proof of
work, session, capability, JMAP session, credentials saved), login by API key, then its bundled presets: list the
inbox, send mail, send with an attachment (base64 in the request, and a file through the upload URL), reply, list
sent. One agent mails another and the other reads it; mail to another domain stays in Postern's outbox.

Self-contained: installs the package without its LangChain dependency into .build/client-sdks/ (pip --target
--no-deps; the `atomicmail` package it vendors needs only the standard library), runs each CLI step in a child
process with its own credentials directory, against .build/debug/postern (or $POSTERN_BIN) with agent difficulty 2.
"""

import atexit
import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, pip_target, postern

VERSION = "0.3.31"
check = Checks()


def install():
    return pip_target("langchain-atomicmail-" + VERSION, "langchain-atomicmail==" + VERSION, "atomicmail", no_deps=True)


class Agent:
    """One agent: the Atomic CLI with its own credentials directory."""

    def __init__(self, sdk, base, name):
        self.sdk, self.base, self.name = sdk, base, name
        self.home = tempfile.mkdtemp(prefix="atomic-" + name + "-")
        atexit.register(shutil.rmtree, self.home, ignore_errors=True)  # its credentials: nothing left in /tmp
        self.credentials = os.path.join(self.home, ".atomicmail")

    def cli(self, *args, credentials=None):
        env = dict(os.environ, PYTHONPATH=self.sdk, HOME=self.home, ATOMIC_MAIL_AUTH_URL=self.base,
                   ATOMIC_MAIL_API_URL=self.base, ATOMIC_MAIL_CREDENTIALS_DIR=credentials or self.credentials)
        out = subprocess.run([sys.executable, "-c", "from atomicmail.cli import main; raise SystemExit(main())", *args],
                             env=env, capture_output=True, text=True, timeout=300)
        return out.returncode, out.stdout, out.stderr

    def jmap(self, preset=None, ops=None, variables=None, attachment=None):
        args = ["jmap_request"] + (["--ops-file", preset] if preset else ["--ops", json.dumps(ops)])
        if variables:
            args += ["--vars", json.dumps(variables)]
        if attachment:
            args += ["--attachment", attachment]
        code, out, err = self.cli(*args)
        if code != 0:
            print(err.strip()[-1500:], flush=True)
            return None
        return json.loads(out[: out.rfind("}") + 1])

    def responses(self, body):
        """call id → (name, arguments) of its first response (an implicit Email/set shares its call's id)."""
        out = {}
        for name, args, call in (body or {}).get("methodResponses", []):
            out.setdefault(call, (name, args))
        return out


def inbox(agent, subject):
    """The newest message of `agent`'s inbox with `subject` (the list_inbox preset), or None."""
    body = agent.jmap("list_inbox.json")
    listed = agent.responses(body).get("g0", ("", {}))[1].get("list", [])
    return next((m for m in listed if m.get("subject") == subject), None)


def email(agent, account, message_id, properties):
    body = agent.jmap(ops={"using": ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail"], "methodCalls": [
        ["Email/get", {"accountId": account, "ids": [message_id], "properties": properties,
                       "fetchTextBodyValues": True}, "e"]]})
    found = agent.responses(body).get("e", ("", {}))[1].get("list", [])
    return found[0] if found else {}


CLI = 'python3 -c "from atomicmail.cli import main; raise SystemExit(main())"'


def documented_commands():
    """The fenced bash block of docs/api/agent.md's "Atomic Mail's official client": the pip line, the export line and
    the CLI lines (their arguments split as a shell would)."""
    text = open(os.path.join(ROOT, "docs", "api", "agent.md")).read()
    section = text.split("## Atomic Mail's official client", 1)[1].split("\n## ", 1)[0]
    lines = re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip().splitlines()
    return lines, [shlex.split(line[len(CLI):]) for line in lines if line.startswith(CLI + " ")]


def check_documented(sdk, base):
    """docs/api/agent.md's exact lines: the version it installs is the one tested, the URLs it exports are the two the
    CLI reads, and each CLI line runs against this server as written (the username made unique, the recipient an
    inbox of this server)."""
    lines, commands = documented_commands()
    check(any(("langchain-atomicmail==" + VERSION) in line for line in lines), "agent.md installs the version tested")
    check(any(l.startswith("export ") and "ATOMIC_MAIL_AUTH_URL=" in l and "ATOMIC_MAIL_API_URL=" in l for l in lines),
          "agent.md sets ATOMIC_MAIL_AUTH_URL and ATOMIC_MAIL_API_URL")
    check([c[0] for c in commands] == ["register", "jmap_request", "jmap_request"], "agent.md: register, then two presets")
    reader = Agent(sdk, base, "docs")
    for args in commands:
        args = [a.replace("myagent", "docs-agent") for a in args]
        if "--vars" in args:
            at = args.index("--vars") + 1
            args[at] = json.dumps(dict(json.loads(args[at]), TO="docs-agent@agents.localhost"))
        code, out, err = reader.cli(*args)
        check(code == 0, f"agent.md runs as written: {' '.join(args[:3])} "
              f"{err.strip()[-300:]}")
    check(inbox(reader, "Hello") is not None, "agent.md: the documented send reaches the inbox it names")


def main():
    sdk = install()
    with postern(env={"POSTERN_AGENT_POW_DIFFICULTY": "2", "POSTERN_AGENT_POW_DYNAMIC": "off"}) as base:
        alice, bob = Agent(sdk, base, "alice"), Agent(sdk, base, "bob")
        registered = {}
        for agent, username in ((alice, "alice-agent"), (bob, "bob-agent")):
            code, out, err = agent.cli("register", "--username", username, "--watch", "on-demand")
            result = json.loads(out) if code == 0 else {}
            registered[agent.name] = result
            check(code == 0 and result.get("inbox") == f"{username}@agents.localhost" and result.get("apiKey"),
                  f"register {username}: {err.strip()[-300:] or 'inbox ' + str(result.get('inbox'))}")
            saved = json.load(open(os.path.join(agent.credentials, "credentials.json")))
            check(saved.get("apiKey") == result.get("apiKey") and saved.get("inboxId") == result.get("inbox")
                  and saved.get("uploadUrl", "").startswith(base) and saved.get("apiUrl") == base,
                  f"register {username}: the API key, inbox and this server's URLs are saved")
        alice_inbox, bob_inbox = registered["alice"]["inbox"], registered["bob"]["inbox"]

        code, out, err = alice.cli("register", "--api-key", registered["alice"]["apiKey"], "--watch", "on-demand",
                                   credentials=os.path.join(alice.home, "second"))
        check(code == 0 and json.loads(out).get("inbox") == alice_inbox,
              f"register --api-key logs the same inbox in {err.strip()[-300:]}")

        empty = alice.jmap("list_inbox.json")
        check(alice.responses(empty).get("g0", ("", {}))[1].get("list") == [], "list_inbox: a new inbox is empty")

        sent = alice.jmap("send_mail.json", variables={"TO": bob_inbox, "SUBJECT": "Hello Bob", "BODY": "Hi from Alice"})
        submission = alice.responses(sent).get("c1", ("", {}))[1]
        status = (submission.get("created") or {}).get("s1", {}).get("deliveryStatus", {})
        check(status.get(bob_inbox, {}).get("delivered") == "yes", "send_mail: delivered to Bob at once")
        received = inbox(bob, "Hello Bob")
        check(received is not None and received["from"][0]["email"] == alice_inbox, "list_inbox: Bob reads it")
        body = email(bob, registered["bob"]["accountId"], (received or {}).get("id"), ["bodyValues", "textBody"])
        check(any(v.get("value") == "Hi from Alice" for v in body.get("bodyValues", {}).values()),
              "Email/get: Bob reads the text")

        reply = bob.jmap("reply.json", variables={"MAIL_ID": (received or {}).get("id", ""), "BODY": "Hi Alice"})
        check(bob.responses(reply).get("c1", ("", {}))[0] == "EmailSubmission/set", "reply: submitted")
        answer = inbox(alice, "Re: Hello Bob")
        check(answer is not None, "reply: Alice has 'Re: Hello Bob'")
        original = email(alice, registered["alice"]["accountId"], (answer or {}).get("id"), ["inReplyTo", "threadId"])
        check(bool(original.get("inReplyTo")), "reply: it answers the original's Message-ID")

        payload = b"%PDF-1.4 test attachment\n"
        with_attachment = alice.jmap("send_mail_attachment.json", variables={
            "TO": bob_inbox, "SUBJECT": "With a file", "BODY": "see attached",
            "ATTACHMENT_BASE64": base64.b64encode(payload).decode(), "ATTACHMENT_TYPE": "application/pdf",
            "ATTACHMENT_NAME": "report.pdf"})
        check(alice.responses(with_attachment).get("s0", ("", {}))[0] == "EmailSubmission/set",
              "send_mail_attachment: Blob/upload, Email/set with #b1, EmailSubmission/set")
        got = inbox(bob, "With a file") or {}
        parts = email(bob, registered["bob"]["accountId"], got.get("id"), ["attachments"]).get("attachments", [])
        check(len(parts) == 1 and parts[0]["name"] == "report.pdf" and parts[0]["size"] == len(payload),
              "send_mail_attachment: Bob sees report.pdf")

        path = os.path.join(alice.home, "notes.txt")
        with open(path, "w") as f:
            f.write("uploaded through the upload URL\n")
        uploaded = alice.jmap("send_mail_blob_attachment.json", attachment=path,
                              variables={"TO": bob_inbox, "SUBJECT": "Uploaded file", "BODY": "via uploadUrl"})
        check(alice.responses(uploaded).get("s0", ("", {}))[0] == "EmailSubmission/set",
              "send_mail_blob_attachment: --attachment uploads, then sends")
        got = inbox(bob, "Uploaded file") or {}
        parts = email(bob, registered["bob"]["accountId"], got.get("id"), ["attachments"]).get("attachments", [])
        check(len(parts) == 1 and parts[0]["name"] == "notes.txt", "send_mail_blob_attachment: Bob sees notes.txt")

        away = alice.jmap("send_mail.json", variables={"TO": "someone@example.org", "SUBJECT": "Out", "BODY": "x"})
        status = ((alice.responses(away).get("c1", ("", {}))[1].get("created") or {}).get("s1", {})
                  .get("deliveryStatus", {}).get("someone@example.org", {}))
        check(status.get("delivered") == "no" and status.get("heldReason") == "outbound_off"
              and "outbound delivery is off on this server" in status.get("smtpReply", ""),
              "send_mail to another domain: held in the outbox, and the response says why, typed and in words")

        listed = alice.jmap("list_sent.json")
        sent_list = alice.responses(listed).get("g0", ("", {}))[1].get("list", [])
        subjects = {m["subject"]: m.get("keywords", {}) for m in sent_list}
        check({"Hello Bob", "With a file", "Uploaded file", "Out"} <= set(subjects), "list_sent: every sent message")
        check(subjects.get("Hello Bob", {}).get("$sent") and "$draft" not in subjects.get("Hello Bob", {}),
              "list_sent: $sent set and $draft cleared by onSuccessUpdateEmail")
        hello = next((m for m in sent_list if m["subject"] == "Hello Bob"), {})
        check(hello.get("threadId") is not None and hello.get("threadId") == (answer or {}).get("threadId"),
              "reply: Alice's sent original and Bob's answer share a thread")
        check_documented(sdk, base)
    check.finish("atomic client")


if __name__ == "__main__":
    main()
