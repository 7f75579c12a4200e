"""A small fake of GitHub's four sign-in endpoints on loopback (issue 54: GitHub has no packaged double), strict about
what Postern must send, so that a test fails when it sends something GitHub would refuse.

- `GET|POST /login/oauth/authorize` (client_id, redirect_uri, state, code_challenge, code_challenge_method=S256,
  scope; `user` = the login the test signs in as, standing for GitHub's own sign-in page): 302 to the redirect URI with
  `code` and `state`.
- `POST /login/oauth/access_token` (form: client_id, client_secret, code, redirect_uri, code_verifier;
  `Accept: application/json`): GitHub's JSON answer, its errors with status 200 as GitHub does.
- `GET /api/user`, `GET /api/user/emails` (`Authorization: Bearer`, `Accept: application/vnd.github+json`, a
  `User-Agent`): the user and their email list; 401 `Bad credentials` otherwise.

    with FakeGitHub(client_id, client_secret) as github:
        github.add_user("octocat", 583231, [("octo@example.com", True, True)])   # (email, primary, verified)
        github.web_url, github.api_url

Standard library only."""

import base64
import hashlib
import http.server
import json
import secrets
import threading
import urllib.parse


class FakeGitHub:
    def __init__(self, client_id, client_secret):
        self.client_id, self.client_secret = client_id, client_secret
        self.users = {}      # login -> (id, name, [(email, primary, verified)])
        self.codes = {}      # code -> (login, redirect_uri, code_challenge)
        self.tokens = {}     # access token -> login
        self.api_calls = []  # (path, headers dict) of every API call
        self.lock = threading.Lock()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake._handle(self, "GET")

            def do_POST(self):
                fake._handle(self, "POST")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.web_url = f"http://127.0.0.1:{self.server.server_port}"
        self.api_url = self.web_url + "/api"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def add_user(self, login, user_id, emails, name=None):
        with self.lock:
            self.users[login] = (user_id, name, list(emails))

    # The endpoints.

    def _handle(self, handler, method):
        parts = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        form = {}
        if method == "POST":
            length = int(handler.headers.get("Content-Length") or 0)
            form = dict(urllib.parse.parse_qsl(handler.rfile.read(length).decode()))
        if parts.path == "/login/oauth/authorize":
            return self._authorize(handler, query | form)
        if parts.path == "/login/oauth/access_token" and method == "POST":
            return self._access_token(handler, form)
        if parts.path in ("/api/user", "/api/user/emails") and method == "GET":
            return self._api(handler, parts.path)
        self._answer(handler, 404, {"message": "Not Found"})

    def _authorize(self, handler, fields):
        login = fields.get("user")
        if (fields.get("client_id") != self.client_id or login not in self.users or not fields.get("state")
                or fields.get("code_challenge_method") != "S256" or not fields.get("code_challenge")
                or not fields.get("redirect_uri")):
            return self._answer(handler, 400, {"message": "bad authorization request"})
        code = secrets.token_urlsafe(16)
        with self.lock:
            self.codes[code] = (login, fields["redirect_uri"], fields["code_challenge"])
        target = fields["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": fields["state"]})
        handler.send_response(302)
        handler.send_header("Location", target)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def _access_token(self, handler, form):
        if "application/json" not in (handler.headers.get("Accept") or ""):
            # GitHub answers form-encoded without it, which a JSON client cannot read.
            return self._answer(handler, 200, None, raw=b"error=accept_json_please")
        with self.lock:
            grant = self.codes.pop(form.get("code", ""), None)
        if form.get("client_id") != self.client_id or form.get("client_secret") != self.client_secret:
            return self._answer(handler, 200, {"error": "incorrect_client_credentials"})
        verifier = form.get("code_verifier", "")
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if grant is None or grant[1] != form.get("redirect_uri") or grant[2] != challenge:
            return self._answer(handler, 200, {"error": "bad_verification_code"})
        token = "gho_" + secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = grant[0]
        self._answer(handler, 200, {"access_token": token, "token_type": "bearer", "scope": "read:user,user:email"})

    def _api(self, handler, path):
        headers = {name.lower(): value for name, value in handler.headers.items()}
        with self.lock:
            self.api_calls.append((path, headers))
            login = self.tokens.get(headers.get("authorization", "").removeprefix("Bearer "))
        if login is None:
            return self._answer(handler, 401, {"message": "Bad credentials"})
        if not headers.get("user-agent"):
            return self._answer(handler, 403, {"message": "Request forbidden by administrative rules."})
        if headers.get("accept") != "application/vnd.github+json":
            return self._answer(handler, 415, {"message": "Unsupported 'Accept' header"})
        user_id, name, emails = self.users[login]
        if path == "/api/user":
            # A private email: GitHub's /user then says null, and only /user/emails has it.
            return self._answer(handler, 200, {"login": login, "id": user_id, "name": name, "email": None})
        self._answer(handler, 200, [{"email": email, "primary": primary, "verified": verified, "visibility": None}
                                    for email, primary, verified in emails])

    @staticmethod
    def _answer(handler, status, document, raw=None):
        body = raw if raw is not None else json.dumps(document).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
