"""Canaille, a production OpenID Connect provider, as the sign-in provider tests' second IdP (issue 54): run in a
thread through pytest-iam from PyPI (Canaille's own test server: its Flask app on an in-memory database), on a
loopback port. Canaille enforces PKCE (S256 or plain, required) and nonces on the code flow and opens dynamic client
registration (RFC 7591); it sends no `email_verified` claim at all. Import it by name.

- `canaille_provider()`: installs the pinned versions into .build/client-sdks/ on first use and yields a `Canaille`
- `Canaille.issuer`: `http://127.0.0.1:<port>` (no trailing slash: what its discovery document says)
- `Canaille.add_user(user_name, password, email)`: a Canaille account
- `Canaille.register(redirect_uri)`: registers a confidential client over HTTP (RFC 7591); (client_id, client_secret)
- `Canaille.sign_in(browser, authorize_url, user_name, password)`: the person's walk at Canaille with `browser`'s
  cookies (a `FormDriver` following no redirect): the authorization request, Canaille's login form (the user name,
  then the password), its consent form (accept); returns the callback URL Canaille sends the browser back to
"""

import contextlib
import json
import logging
import os
import threading
import urllib.parse
import urllib.request
import uuid

from .forms import FormDriver
from .ports import free_port
from .server import install_packages

PYTEST_IAM_VERSION, CANAILLE_VERSION, AUTHLIB_VERSION = "0.3.0", "0.3.6", "1.9.10"


class Canaille:
    def __init__(self, server):
        self.server = server
        self.issuer = f"http://127.0.0.1:{server.port}"

    def add_user(self, user_name, password, email):
        with self.server.app.app_context():
            user = self.server.models.User(user_name=user_name, formatted_name=user_name.title(), password=password,
                                           emails=[email])
            self.server.backend.save(user)

    def register(self, redirect_uri):
        with urllib.request.urlopen(self.issuer + "/.well-known/openid-configuration", timeout=10) as response:
            endpoint = json.load(response)["registration_endpoint"]
        request = urllib.request.Request(endpoint, method="POST", headers={"Content-Type": "application/json"},
                                         data=json.dumps({
                                             "client_name": "Postern", "redirect_uris": [redirect_uri],
                                             "grant_types": ["authorization_code"], "response_types": ["code"],
                                             "token_endpoint_auth_method": "client_secret_basic",
                                             "scope": "openid email profile"}).encode())
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 201, f"Canaille registration: {response.status}"
            client = json.load(response)
        return client["client_id"], client["client_secret"]

    def sign_in(self, browser, authorize_url, user_name, password):
        """Follows Canaille's redirects: its login form takes the user name, then the password, its consent form is
        accepted; a browser already signed in at Canaille (and consented) goes straight back. Returns the first
        address outside Canaille: the client's redirect URI with the answer."""
        assert authorize_url.startswith(self.issuer + "/oauth/authorize?"), authorize_url
        url, method, fields, seen = authorize_url, "GET", None, []
        for _ in range(8):
            status, location, html = browser.request(method, url, fields)
            seen.append((status, url.split("?")[0]))
            if status in (302, 303):
                target = urllib.parse.urljoin(url, location)
                if not target.startswith(self.issuer + "/"):
                    return target
                url, method, fields = target, "GET", None
                continue
            assert status == 200, f"Canaille: {seen} {html[:300]}"
            path = urllib.parse.urlsplit(url).path
            pages = {"/login": ("login", {"login": user_name}), "/auth/password": ("password", {"password": password}),
                     "/oauth/authorize": ("answer", {"answer": "accept"})}
            field, answer = next((v for k, v in pages.items() if path.startswith(k)), (None, None))
            form = next((f for f in FormDriver.forms(html).forms if any(i["name"] == field for i in f["inputs"])),
                        None)
            assert form is not None, f"Canaille: an unexpected page {seen} {html[:300]}"
            action = urllib.parse.urljoin(url, form["action"] or url)
            fields = FormDriver.hidden(form) | answer
            url, method = action, "POST"
        raise AssertionError(f"Canaille: no way back to the client {seen}")


@contextlib.contextmanager
def canaille_provider():
    install_packages(f"pytest-iam-{PYTEST_IAM_VERSION}",
                     [f"pytest-iam=={PYTEST_IAM_VERSION}", f"canaille=={CANAILLE_VERSION}",
                      f"authlib=={AUTHLIB_VERSION}"], ["pytest_iam", "canaille"])
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # Canaille on plain http://127.0.0.1, as pytest-iam's fixture sets
    from canaille import create_app
    from canaille.backends import Backend
    from joserfc.jwk import JWKRegistry
    from pytest_iam import Server
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = free_port()
    key = JWKRegistry.generate_key("RSA", 2048)
    key.ensure_kid()
    # pytest-iam's own iam_configuration fixture, with the issuer on 127.0.0.1 (tests talk to 127.0.0.0/8 only) and
    # the default permission to use OpenID Connect only.
    app = create_app(config={
        "TESTING": True, "ENV_FILE": None, "SECRET_KEY": str(uuid.uuid4()), "WTF_CSRF_ENABLED": False,
        "PREFERRED_URL_SCHEME": "http", "SERVER_NAME": f"127.0.0.1:{port}",
        "CANAILLE": {"DATABASE": "memory", "JAVASCRIPT": False, "ACL": {"DEFAULT": {"PERMISSIONS": ["use_oidc"]}},
                     "LOGGING": {"version": 1, "disable_existing_loggers": False,
                                 "handlers": {"quiet": {"class": "logging.NullHandler"}},
                                 "loggers": {"canaille": {"level": "ERROR", "handlers": ["quiet"],
                                                          "propagate": False}}}},
        "CANAILLE_OIDC": {"DYNAMIC_CLIENT_REGISTRATION_OPEN": True, "ACTIVE_JWKS": [key.as_dict(private=True)]},
    }, env_file=None, env_prefix="PYTEST_IAM_")
    server = Server(app, port, Backend.instance)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Canaille(server)
    finally:
        server.httpd.shutdown()
        thread.join()
