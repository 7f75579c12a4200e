"""Client ID metadata documents over real TLS (oauth-mcp-contract.md 2.5): a document served by a loopback https
origin with its own CA (the openssl CLI makes it), which Postern reaches only through the test-only opt-in
(POSTERN_OAUTH_CIMD_ALLOW_HOSTS=127.0.0.1, POSTERN_OAUTH_CIMD_TRUST_CA_FILE). authlib runs the code flow with the
URL as client_id and never registers; the document is fetched once and then cached. Refused: a document whose
client_id is another URL, one with a client_secret, a redirect (3xx), an oversize one, non-JSON; and, without the
opt-in, the loopback origin itself (the address policy).

Standard library, authlib (installed into .build/client-sdks/ as test_oauth_authlib.py does) and the openssl CLI.
"""

import json
import os
import ssl
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, FormDriver, free_port, http, install_packages, postern

EMAIL, PASSWORD = "owner@example.com", "owner-password-1"
CALLBACK = "http://127.0.0.1:8766/callback"
check = Checks()


class Origin:
    """An https origin on 127.0.0.1 serving documents by path, counting requests per path."""

    def __init__(self, directory):
        self.cert, self.key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", self.key, "-out", self.cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE"],
                       check=True, capture_output=True)
        self.routes, self.hits = {}, {}
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                origin.hits[self.path] = origin.hits.get(self.path, 0) + 1
                status, headers, body = origin.routes.get(self.path, (404, {}, b"missing"))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"https://127.0.0.1:{self.port}{path}"

    def document(self, path, **changes):
        body = {"client_id": self.url(path), "client_name": "CIMD app", "redirect_uris": [CALLBACK],
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                "token_endpoint_auth_method": "none", "application_type": "native"}
        body.update(changes)
        self.routes[path] = (200, {"Content-Type": "application/json", "Cache-Control": "max-age=600"},
                             json.dumps({k: v for k, v in body.items() if v is not None}).encode())


def authorize_url(base, client_id, challenge="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"):
    return base + "/oauth/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": CALLBACK, "scope": "mail.read",
        "resource": base + "/jmap", "state": "s", "code_challenge": challenge, "code_challenge_method": "S256"})


def main(base, origin, metadata):
    from authlib.common.security import generate_token
    from authlib.integrations.httpx_client import OAuth2Client

    check(metadata["client_id_metadata_document_supported"] is True, "metadata: client ID metadata documents on")
    origin.document("/client.json")
    client_id = origin.url("/client.json")
    c = OAuth2Client(client_id=client_id, token_endpoint_auth_method="none", redirect_uri=CALLBACK,
                     scope="mail.read", code_challenge_method="S256", token_endpoint=metadata["token_endpoint"])
    verifier = generate_token(64)
    url, state = c.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier,
                                            resource=base + "/jmap")
    driver = FormDriver(base)
    status, _, html = driver.consent_page(url, EMAIL, PASSWORD)
    check(status == 200 and "CIMD app" in html and 'id="client-host">127.0.0.1<' in html,
          "consent page: the document's client_name and the client's host")
    callback = driver.authorize(url, EMAIL, PASSWORD, new_inbox="cimd-inbox")
    token = c.fetch_token(authorization_response=callback, state=state, code_verifier=verifier,
                          resource=base + "/jmap")
    check(token["scope"] == "mail.read" and token["refresh_token"], "authlib: code flow with the URL as client_id")
    refreshed = c.refresh_token(metadata["token_endpoint"], refresh_token=token["refresh_token"])
    check(bool(refreshed.get("access_token")), "authlib: refresh as the document client")
    check(origin.hits.get("/client.json") == 1, f"the document was fetched once, then cached ({origin.hits})")

    refusals = {
        "/other.json": lambda: origin.document("/other.json", client_id=origin.url("/client.json")),
        "/secret.json": lambda: origin.document("/secret.json", client_secret="s3cret"),
        "/post.json": lambda: origin.document("/post.json", token_endpoint_auth_method="client_secret_post"),
        "/moved.json": lambda: origin.routes.__setitem__("/moved.json", (302, {"Location": "/client.json"}, b"")),
        "/big.json": lambda: origin.routes.__setitem__(
            "/big.json", (200, {"Content-Type": "application/json"},
                          json.dumps({"client_id": origin.url("/big.json"), "redirect_uris": [CALLBACK],
                                      "padding": "x" * 40000}).encode())),
        "/text.json": lambda: origin.routes.__setitem__("/text.json", (200, {}, b"not json")),
    }
    for path, serve in refusals.items():
        serve()
        status, location, _ = driver.request("GET", authorize_url(base, origin.url(path)))
        check(status == 400 and not location, f"refused document {path}: the 400 page, no redirect")
    check(origin.hits.get("/client.json") == 1, "the redirect was not followed")


if __name__ == "__main__":
    install_packages("authlib-1.9.10", ["authlib==1.9.10", "httpx"], ["authlib", "httpx"])
    with tempfile.TemporaryDirectory() as work:
        origin = Origin(work)
        settings = {"POSTERN_OAUTH_CIMD_ALLOW_HOSTS": "127.0.0.1", "POSTERN_OAUTH_CIMD_TRUST_CA_FILE": origin.cert}
        with postern(settings, owners=[(EMAIL, PASSWORD)]) as server:
            main(server, origin, http(server, "GET", "/.well-known/oauth-authorization-server")[2])
        origin.document("/blocked.json")
        with postern({"POSTERN_OAUTH_CIMD_TRUST_CA_FILE": origin.cert}) as server:
            status, location, _ = FormDriver(server).request("GET", authorize_url(server, origin.url("/blocked.json")))
            check(status == 400 and not origin.hits.get("/blocked.json"),
                  "without the opt-in, a loopback document is refused before any connection")
        with postern({"POSTERN_OAUTH_CLIENT_METADATA_DOCUMENTS": "off"}) as server:
            metadata = http(server, "GET", "/.well-known/oauth-authorization-server")[2]
            check(metadata["client_id_metadata_document_supported"] is False, "off: the metadata says false")
        origin.server.shutdown()
    check.finish("test_oauth_cimd")
