"""Every code example in docs/ runs, as a reader would run it, against a real `postern serve --profile test` and the
libraries a newcomer installs today (issue 83 item 9): docs/imap.md's imapclient example raised ValueError on
imapclient 4.1.0 while the project's own tests pinned 3.0.1.

Each fenced block whose language is a program's (python, sh, bash, shell, go, yaml) carries a mark on the line before
it, an HTML comment the rendered page does not show:

    <!-- example: run NAME -->          run by this test, with what NAME sets up (EXAMPLES below)
    <!-- example: not run: WHY -->      not run here, and why (a GitHub Actions workflow, a Go program)

A block without a mark fails the test, so no new example goes unrun unnoticed. To run one, the test starts the
example's program as its reader would (a Python process of its own, or bash in a scratch directory), with the
libraries of Tests/Clients/docs-examples-requirements.txt (the one place they are pinned; a version a page names must
be that one) installed into .build/client-sdks, and with what the page leaves to its reader made real: the addresses
and ports of the documented host (`127.0.0.1:8080`, `mail.example.com`) become the test server's, a placeholder
(`"<operator token>"`, `access_token`, `app`) a value or an object that does what the page says, and the mail the
example waits for is delivered while it waits. The text of the example is otherwise run as written."""

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, http, postern
from postern_testkit.mail_fixtures import deliver_smtp, message
from postern_testkit.mailtd import create_account
from postern_testkit.owner_tokens import owner_token
from postern_testkit.proofs import agent_signup
from postern_testkit.server import _pip_install

check = Checks()
DOCS = os.path.join(ROOT, "docs")
REQUIREMENTS = os.path.join(ROOT, "Tests", "Clients", "docs-examples-requirements.txt")
LANGUAGES = {"python", "sh", "bash", "shell", "go", "yaml"}
MARK = re.compile(r"^<!-- example: (?:run (?P<name>[a-z0-9-]+)|not run: (?P<why>.+\S)) -->$")
TOKEN = "operator-token-for-the-docs-0123456789"
OWNER = ("owner@example.com", "owner-password")
ANN = ("ann@mail.localhost", "the account's password")
BINARY = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))


def blocks():
    """Every fenced block of docs/**/*.md whose language is in LANGUAGES: (page, line, language, text, mark match or
    None), in page and line order."""
    found = []
    for directory, _, files in sorted(os.walk(DOCS)):
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            path = os.path.join(directory, name)
            with open(path) as page:
                lines = page.read().split("\n")
            index = 0
            while index < len(lines):
                fence = re.match(r"^```(\w*)\s*$", lines[index])
                if not fence:
                    index += 1
                    continue
                end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
                if fence.group(1) in LANGUAGES:
                    previous = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
                    found.append((os.path.relpath(path, ROOT), index + 1, fence.group(1),
                                  "\n".join(lines[index + 1:end]) + "\n", MARK.match(previous.strip())))
                index = end + 1
    return found


def pins():
    """{name: version} of the requirements file, and the lines to install (a line marked `# the page installs it` is
    a pin a page's own command installs)."""
    versions, install = {}, []
    with open(REQUIREMENTS) as f:
        for line in f:
            requirement = line.split("#", 1)[0].strip()
            if not requirement:
                continue
            name, version = requirement.split("==")
            versions[name.lower()] = version
            if "# the page installs it" not in line:
                install.append(requirement)
    return versions, install


def libraries():
    """The directory the pinned libraries are installed in (once per content of the requirements file)."""
    _, install = pins()
    with open(REQUIREMENTS, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    return _pip_install("docs-examples-" + digest, install, ["imapclient", "websockets", "requests", "mcp", "pytest",
                                                             "mailpit"])


def meanwhile(action, every=4):
    """Runs `action` in a thread every `every` s until the returned event is set: the mail an example waits for, sent
    while it waits (an example's start, its imports and its socket take a time no test can know)."""
    stop = threading.Event()

    def run():
        while not stop.wait(every):
            action()
    threading.Thread(target=run, daemon=True).start()
    return stop


def send(server, to, subject, raw=None):
    raw = raw or message("app@example.com", to, subject, text="Body of " + subject)[0]
    refused = deliver_smtp("127.0.0.1", server.smtp_port, "app@example.com", [to], raw)
    if refused:
        raise AssertionError(f"SMTP refused {refused}")


def run(program, language, directory, libraries_path, timeout=180):
    """(exit status, output) of `program` run as its reader runs it: Python in a process of its own with the pinned
    libraries on its path, a shell example in bash (-e) with HOME in the scratch directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("POSTERN_")}
    env.update(PYTHONPATH=libraries_path, HOME=directory, POSTERN_BIN=BINARY, PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-c", program] if language == "python" else ["bash", "-e", "-c", program]
    try:
        done = subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        return None, f"timed out after {timeout} s: {expired.stdout or ''}{expired.stderr or ''}"
    return done.returncode, done.stdout + done.stderr


def replaced(text, pairs, name):
    """`text` with each (documented, real) pair replaced; a documented text that is not in the example fails (the page
    changed: the test must follow it)."""
    for old, new in pairs:
        check(old in text, f"{name}: the example still names {old!r}")
        text = text.replace(old, new)
    return text


APP = '''
import smtplib as _smtplib
from email.message import EmailMessage as _EmailMessage


class _App:
    """The reader's application: it sends one mail to the address it is given."""
    def _send(self, to, subject):
        message = _EmailMessage()
        message["From"], message["To"], message["Subject"] = "app@example.com", to, subject
        message.set_content("Confirm: https://app.example/confirm")
        with _smtplib.SMTP("127.0.0.1", {smtp}) as smtp:
            smtp.send_message(message)

    def sign_up(self, to):
        self._send(to, "welcome")

    def resend_confirmation(self, to):
        self._send(to, "welcome again")


app = _App()
'''


class Setup:
    """What the test server needs for the examples, made once: the accounts and tokens their placeholders stand
    for."""

    def __init__(self, server):
        self.server = server
        self.host = urllib.parse.urlsplit(server).netloc
        self.ann = create_account(server, ANN[0], password=ANN[1])
        send(server, ANN[0], "docs first")
        self.owner_token, self.owner_inbox, _ = owner_token(server, OWNER[0], OWNER[1], "mail.read")
        send(server, self.owner_inbox, "for the owner")
        status, body, session = agent_signup(server, "docs-agent")
        if status != 201:
            raise AssertionError(f"agent signup: {status} {body}")
        self.agent_key, self.agent_inbox, self.agent_session = body["apiKey"], body["inbox"], session
        status, body, _ = agent_signup(server, "someone")
        if status != 201:
            raise AssertionError(f"agent signup someone: {status} {body}")
        self.app = APP.format(smtp=server.smtp_port)


def example_runs(setup, name, text):
    """(program, language, what must hold of its output, the delivery to make while it runs) of example `name`."""
    s, server = setup, setup.server
    ws = server.replace("http", "ws", 1)
    if name == "imapclient-inbox":
        program = replaced(text, [("port=1143", f"port={server.imap_port}")], name)
        return program, "python", ["docs first", "EXISTS"], lambda: send(server, ANN[0], "while idling")
    if name == "imapclient-oauthbearer":
        program = f"access_token = {s.owner_token!r}\n" + replaced(text, [
            ('cafile="ca.pem"', f'cafile="{os.path.join(server.data, "smtp-tls-cert.pem")}"'),
            ('"mail.example.com", port=993', f'"localhost", port={server.imaps_port}'),
            ('"my-agent@agents.example.com"', repr(s.owner_inbox).replace("'", '"')),
        ], name)
        return program, "python", ["for the owner"], None
    if name == "poplib":
        return replaced(text, [('poplib.POP3("127.0.0.1", 1110)', f'poplib.POP3("127.0.0.1", {server.pop3_port})')],
                        name), "python", ["b'1' b'"], None
    if name == "mailpit-requests":
        program = f"OPERATOR_TOKEN = {TOKEN!r}\n" + replaced(text, [("https://postern.example", server)], name)
        return program + 'print("listed and searched")\n', "python", ["listed and searched"], None
    if name == "mailpit-api-client":
        # The mail it reads includes one with no Date, Message-ID or Delivered-To (issue 83 item 7).
        send(server, "bare@example.org", "bare", raw=b"From: a@example.com\r\nTo: bare@example.org\r\n"
             b"Subject: bare\r\n\r\nno date\r\n")
        program = f"OPERATOR_TOKEN = {TOKEN!r}\n" + replaced(text, [("127.0.0.1:8080", s.host)], name)
        return program, "python", ["bare", "@mailpit"], None
    if name == "operator-wait":
        program = (f"import json, urllib.request\nBASE = {server!r}\nOPERATOR_TOKEN = {TOKEN!r}\n" + s.app + text
                   + 'print(first["subject"], "/", second["subject"])\n')
        return program, "python", ["welcome / welcome again"], None
    if name == "operator-events":
        program = (f"BASE = {server!r}\nOPERATOR_TOKEN = {TOKEN!r}\n" + s.app + text
                   + 'print(asyncio.run(next_mail("ann@example.org"))["subject"])\n')
        return program, "python", ["welcome"], None
    if name == "mailcx-ws":
        program = replaced(text, [('"ws://127.0.0.1:8080"', repr(ws).replace("'", '"')),
                                  ('"<mailbox token>"', repr(s.ann["token"]).replace("'", '"'))], name)
        return program, "python", ["to the socket"], lambda: send(server, ANN[0], "to the socket")
    if name == "operator-ws":
        program = replaced(text, [('"ws://127.0.0.1:8080"', repr(ws).replace("'", '"')),
                                  ('"<operator token>"', repr(TOKEN).replace("'", '"'))], name)
        return program, "python", ["to ann, pushed"], lambda: send(server, "ann@example.org", "to ann, pushed")
    if name == "jmap-ws":
        # A capability JWT lives 120 s: one made now, from the agent's session (an hour).
        _, head, _ = http(server, "POST", "/api/v1/capability", bearer=s.agent_session)
        s.capability = head.get("Authorization", " ").split(" ", 1)[1]
        program = replaced(text, [('"ws://127.0.0.1:8080/jmap/ws"', repr(ws + "/jmap/ws").replace("'", '"')),
                                  ('"<capability JWT or access token>"', repr(s.capability).replace("'", '"'))], name)
        return program, "python", ["["], lambda: send(server, s.agent_inbox, "to the agent")
    if name == "mcp-client":
        program = replaced(text, [('"Bearer <api key>"', repr("Bearer " + s.agent_key).replace("'", '"')),
                                  ('"http://127.0.0.1:8080/mcp"', repr(server + "/mcp").replace("'", '"'))], name)
        return program, "python", ["read_inbox", "send_email"], None
    if name in ("client-credentials-curl", "introspection-curl"):
        # The operator's clients (docs/api/oauth.md): one bound to the agent's inbox, and a resource server.
        client_id, secret = oauth_client(server, "--name", "docs", "--inbox", s.agent_inbox)
        rs_id, rs_secret = oauth_client(server, "--name", "docs rs", "--introspection")
        account = agent_account(server, s.agent_session)
        program = (f"CLIENT_ID={client_id}\nCLIENT_SECRET={secret}\nRS_ID={rs_id}\nRS_SECRET={rs_secret}\n"
                   f"ACCOUNT_ID={account}\n" + replaced(text, [("https://mail.example.com", server)], name))
        expected = (['"scope":"mail.read"', '"apiUrl"'] if name == "client-credentials-curl"
                    else ['"active":true', '{"active":false}'])
        return program, "bash", expected, None
    if name == "atomic-cli":
        program = replaced(text, [("http://127.0.0.1:8080", server)], name)
        return program, "bash", ['"inbox"'], None
    raise AssertionError(f"no setup for the example {name!r}")


def oauth_client(server, *arguments):
    """(client_id, client_secret) of `postern oauth client create` with `arguments` on the test server's data."""
    binary = os.environ.get("POSTERN_BIN", os.path.join(ROOT, ".build", "debug", "postern"))
    made = subprocess.run([binary, "oauth", "client", "create", "--data-dir", server.data, *arguments],
                          capture_output=True, text=True, check=True)
    fields = dict(line.split(": ", 1) for line in made.stdout.splitlines() if line.startswith("client_"))
    return fields["client_id"], fields["client_secret"].split("  ", 1)[0]


def agent_account(server, session):
    """The account id of the agent whose session JWT is `session`: the `sub` of a capability token it gets."""
    _, head, _ = http(server, "POST", "/api/v1/capability", bearer=session)
    payload = head.get("Authorization", " ").split(" ", 1)[1].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=="))["sub"]


def sending_replies(server):
    """What docs/imap.md's "Outgoing mail (submission)" says of the incoming listener, as a client meets it: no
    STARTTLS and no AUTH offered, both 502 5.5.1, another domain's recipient 550 5.7.1 (issue 83 item 5)."""
    import smtplib
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as smtp:
        _, features = smtp.ehlo()
        check(b"STARTTLS" not in features and b"AUTH" not in features, f"imap.md: EHLO offers neither ({features})")
        for command in ("STARTTLS", "AUTH PLAIN AGFAYgBj"):
            reply = smtp.docmd(command)
            check(reply == (502, b"5.5.1 Error: command not implemented"), f"imap.md: {command.split()[0]} {reply}")
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as smtp:
        smtp.ehlo()
        smtp.docmd("MAIL FROM:<me@example.com>")
        reply = smtp.docmd("RCPT TO:<someone@example.net>")
        check(reply == (550, b"5.7.1 Relay not permitted"), f"imap.md: another domain's recipient {reply}")


PYTEST_PARTS = ("pytest-conftest", "pytest-test", "pytest-reset")


def pytest_suite(texts, directory, libraries_path):
    """testing.md's fixture as conftest.py, its test, and its reset fixture (with the page's `operator` helper) in one
    suite, run by pytest: the fixture starts its own `serve --profile test`. A last test sees the store emptied by the
    reset after the first."""
    operator = texts["operator-wait"].split("\n\n\n", 1)[0] + "\n"
    with open(os.path.join(directory, "conftest.py"), "w") as f:
        f.write(texts["pytest-conftest"])
    with open(os.path.join(directory, "test_docs.py"), "w") as f:
        f.write(texts["pytest-test"] + "\n\nimport json\nimport urllib.request\n\nimport pytest\n"
                "from conftest import OPERATOR_TOKEN\n\nBASE = None\n\n\n@pytest.fixture(autouse=True, scope='session')\n"
                "def base(postern):\n    global BASE\n    BASE = postern['http']\n\n\n" + operator + "\n\n"
                + texts["pytest-reset"] + "\n\ndef test_zz_the_reset_emptied_the_store(postern):\n"
                "    assert operator('GET', '')['total'] == 0\n")
    return run("import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '.']))", "python",
               directory, libraries_path, timeout=300)


def main():
    versions, _ = pins()
    found = blocks()
    unmarked = [f"{page}:{line}" for page, line, _, _, mark in found if not mark]
    check(not unmarked, f"every code example in docs/ is marked run or not run ({', '.join(unmarked) or 'all are'})")
    texts, twice = {}, []
    for page, line, language, text, mark in found:
        for name, version in re.findall(r"([A-Za-z0-9_.-]+)==([0-9][\w.]*)", text):
            check(versions.get(name.lower()) == version,
                  f"{page}:{line} pins {name}=={version}, the requirements file {versions.get(name.lower())}")
        if mark and mark.group("name"):
            twice += [f"{page}:{line}"] if mark.group("name") in texts else []
            texts[mark.group("name")] = text
    check(not twice, f"each example's name is used once ({', '.join(twice) or 'each is'})")
    path = libraries()
    env = {"POSTERN_OPERATOR_TOKEN": TOKEN, "POSTERN_SMTP_ACCEPT": "any", "POSTERN_MAILBOX_POW_REQUIRED": "off"}
    with postern(env={"POSTERN_MAILBOX_POW_REQUIRED": "off"}) as server:  # the default SMTP_ACCEPT, local
        sending_replies(server)
    with postern(env=env, owners=[OWNER]) as server:
        setup = Setup(server)
        for page, line, language, text, mark in found:
            if not mark or not mark.group("name") or mark.group("name") in PYTEST_PARTS:
                continue
            name = mark.group("name")
            program, runs_as, expected, during = example_runs(setup, name, text)
            directory = tempfile.mkdtemp(prefix="postern-docs-example-")
            stop = meanwhile(during) if during else threading.Event()
            try:
                status, output = run(program, runs_as, directory, path)
            finally:
                stop.set()
                shutil.rmtree(directory, ignore_errors=True)
            check(status == 0 and all(e in output for e in expected),
                  f"{page}:{line} ({name}) runs: exit {status}, output holding {expected}"
                  + ("" if status == 0 and all(e in output for e in expected) else "\n" + output[-3000:]))
    if all(part in texts for part in PYTEST_PARTS):
        directory = tempfile.mkdtemp(prefix="postern-docs-pytest-")
        try:
            status, output = pytest_suite(texts, directory, path)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        check(status == 0 and "2 passed" in output, "docs/testing.md's fixture, test and reset run under pytest"
              + ("" if status == 0 else "\n" + output[-3000:]))
    else:
        check(False, f"docs/testing.md marks its pytest parts {PYTEST_PARTS}")
    check.finish("test_docs_examples")


if __name__ == "__main__":
    main()
