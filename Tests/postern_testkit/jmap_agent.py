"""An agent on the JMAP surface in plain HTTP JSON calls (no SDK): signup with the scrypt proof, the session JWT
traded for capability JWTs (120 s each, so a fresh one every minute), and the calls the outbound tests make: send a
message (Email/set into drafts + EmailSubmission/set), read EmailSubmission/get and /changes, the inbox, and a
message's raw bytes through the download URL.

    alice = JMAPAgent(base, "alice-outbound")
    response, sent = alice.send(to=["bob@dest.test"], bcc=["carol@dest.test"], subject="hi", text="hello")
    alice.submissions([sent])          # EmailSubmission/get's list
"""

import time
import urllib.parse
import urllib.request

from .calls import http
from .proofs import agent_login, agent_signup

USING = ["urn:ietf:params:jmap:core", "urn:ietf:params:jmap:mail", "urn:ietf:params:jmap:submission"]


class JMAPAgent:
    """One signed-up agent. `base` may be changed (a restarted server on the same data directory, on a new port): the
    tokens name the old base URL as their issuer, so the agent logs in again with its API key."""

    def __init__(self, base, username):
        self._base = base
        status, body, self.session_jwt = agent_signup(base, username)
        if status != 201:
            raise AssertionError(f"signup {username}: {status} {body}")
        self.address, self.api_key = body["inbox"], body["apiKey"]
        self._token, self._token_at = None, 0.0
        self.account = None

    @property
    def base(self):
        return self._base

    @base.setter
    def base(self, base):
        self._base, self._token = base, None
        status, body, self.session_jwt = agent_login(base, self.api_key)
        if status not in (200, 201):
            raise AssertionError(f"login {self.address}: {status} {body}")

    def token(self):
        """A capability JWT younger than a minute."""
        if self._token is None or time.monotonic() - self._token_at > 60:
            status, head, body = http(self.base, "POST", "/api/v1/capability", bearer=self.session_jwt)
            if status != 200:
                raise AssertionError(f"capability for {self.address}: {status} {body}")
            self._token, self._token_at = head["Authorization"].split(" ", 1)[1], time.monotonic()
        return self._token

    def account_id(self):
        if self.account is None:
            status, _, session = http(self.base, "GET", "/.well-known/jmap", bearer=self.token())
            if status != 200:
                raise AssertionError(f"JMAP session of {self.address}: {status} {session}")
            self.account = session["primaryAccounts"]["urn:ietf:params:jmap:mail"]
        return self.account

    def call(self, *calls):
        """The method responses ([name, arguments, call id] each) of one JMAP request of `calls` ([name, arguments,
        call id] each; "accountId" is filled in when absent)."""
        account = self.account_id()
        method_calls = [[name, {"accountId": account} | arguments, tag] for name, arguments, tag in calls]
        status, _, body = http(self.base, "POST", "/jmap/api", {"using": USING, "methodCalls": method_calls},
                               bearer=self.token())
        if status != 200:
            raise AssertionError(f"JMAP request: {status} {body}")
        return body["methodResponses"]

    def response(self, responses, tag):
        """The (name, arguments) of the response with call id `tag` (the first of them)."""
        for name, arguments, call_id in responses:
            if call_id == tag:
                return name, arguments
        raise AssertionError(f"no response {tag} in {responses}")

    def mailbox(self, role):
        _, found = self.response(self.call(["Mailbox/query", {"filter": {"role": role}}, "q"]), "q")
        return found["ids"][0]

    def identity(self):
        _, found = self.response(self.call(["Identity/get", {}, "i"]), "i")
        return found["list"][0]["id"]

    def send(self, to=(), cc=(), bcc=(), subject="outbound", text="sent through JMAP", headers=None):
        """Writes a draft and submits it in one request: returns (the EmailSubmission/set arguments, the submission
        id or None). The envelope is left to the server (RFC 8621 7.5: To, Cc and Bcc)."""
        draft = {
            "mailboxIds": {self.mailbox("drafts"): True}, "keywords": {"$draft": True},
            "from": [{"email": self.address}], "to": [{"email": a} for a in to], "subject": subject,
            "bodyValues": {"body": {"value": text}}, "textBody": [{"partId": "body", "type": "text/plain"}],
        }
        if cc:
            draft["cc"] = [{"email": a} for a in cc]
        if bcc:
            draft["bcc"] = [{"email": a} for a in bcc]
        for name, value in (headers or {}).items():
            draft["header:" + name] = value
        responses = self.call(
            ["Email/set", {"create": {"draft": draft}}, "e"],
            ["EmailSubmission/set", {"create": {"send": {"identityId": self.identity(), "emailId": "#draft"}}}, "s"])
        _, submitted = self.response(responses, "s")
        created = (submitted.get("created") or {}).get("send")
        return submitted, created["id"] if created else None

    def submissions(self, ids=None):
        """EmailSubmission/get's list (every submission when `ids` is None)."""
        name, found = self.response(self.call(["EmailSubmission/get", {"ids": ids}, "g"]), "g")
        if name != "EmailSubmission/get":
            raise AssertionError(f"EmailSubmission/get answered {name} {found}")
        return found["list"]

    def submission_state(self):
        """EmailSubmission/get's state, None when the method answers an error (a server without it)."""
        name, found = self.response(self.call(["EmailSubmission/get", {"ids": []}, "g"]), "g")
        return found["state"] if name == "EmailSubmission/get" else None

    def submission_changes(self, since):
        """EmailSubmission/changes' arguments (or the error's) from state `since`."""
        return self.response(self.call(["EmailSubmission/changes", {"sinceState": since}, "c"]), "c")

    def inbox(self, properties=("subject", "from", "blobId", "receivedAt")):
        """The inbox's messages (Email/get of Email/query), newest first."""
        responses = self.call(
            ["Email/query", {"filter": {"inMailbox": self.mailbox("inbox")}, "sort": [{"property": "receivedAt",
                                                                                      "isAscending": False}]}, "q"],
            ["Email/get", {"#ids": {"resultOf": "q", "name": "Email/query", "path": "/ids"},
                           "properties": list(properties)}, "g"])
        return self.response(responses, "g")[1]["list"]

    def download(self, blob_id, name="message.eml", kind="message/rfc822"):
        """The raw bytes of a blob (a message's blobId: the message as stored)."""
        path = (f"/jmap/download/{self.account_id()}/{urllib.parse.quote(blob_id)}/{name}"
                f"?type={urllib.parse.quote(kind)}")
        request = urllib.request.Request(self.base + path, headers={"Authorization": "Bearer " + self.token()})
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.read()
