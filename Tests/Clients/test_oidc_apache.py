"""A real relying party nobody here wrote (issue 88): Debian's Apache with libapache2-mod-auth-openidc, configured
from Postern's discovery document alone (`OIDCProviderMetadataURL`), protecting a page that shows the owner's email
claim. A browser without a session is sent to Postern, signs in as an owner, consents, and comes back to the page,
which shows the email mod_auth_openidc read from the ID token; the relying party was made with
`postern oauth client create --redirect-uri` (client_secret_basic, PKCE S256 as mod_auth_openidc sends it).

Runs a private Apache from a configuration of its own in a temporary directory, on a loopback port. Skips with a
message when Apache or the module is not installed (apt-get install apache2 libapache2-mod-auth-openidc;
scripts/bootstrap --test).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, FormDriver, free_port, postern
from postern_testkit.oidc_mock import postern_command

check = Checks()
APACHE = shutil.which("apache2") or "/usr/sbin/apache2"
MODULES = "/usr/lib/apache2/modules"
OWNER, PASSWORD = "ann@example.com", "ann-password-1"


def start_apache(root, port, issuer, client_id, secret):
    """An Apache on 127.0.0.1:`port` whose /protected/ needs an OpenID sign-in at `issuer`; the process."""
    pages = os.path.join(root, "htdocs", "protected")
    os.makedirs(pages)
    with open(os.path.join(pages, "index.shtml"), "w") as page:
        page.write('<p id="email"><!--#echo var="OIDC_CLAIM_email" --></p>\n')
    for directory in (root, os.path.join(root, "htdocs"), pages):
        os.chmod(directory, 0o755)
    os.chmod(os.path.join(pages, "index.shtml"), 0o644)
    modules = ["mpm_event", "authn_core", "authz_core", "authz_user", "include", "mime", "dir", "auth_openidc"]
    loads = "\n".join(f"LoadModule {name}_module {MODULES}/mod_{name}.so" for name in modules)
    config = os.path.join(root, "apache2.conf")
    with open(config, "w") as out:
        out.write(f"""{loads}
ServerName 127.0.0.1
Listen 127.0.0.1:{port}
User www-data
Group www-data
PidFile {root}/apache2.pid
DefaultRuntimeDir {root}
Mutex file:{root} default
ErrorLog {root}/error.log
LogLevel warn auth_openidc:info
DocumentRoot {root}/htdocs
TypesConfig /etc/mime.types
AddOutputFilter INCLUDES .shtml
DirectoryIndex index.shtml

OIDCProviderMetadataURL {issuer}/.well-known/openid-configuration
OIDCClientID {client_id}
OIDCClientSecret {secret}
OIDCRedirectURI http://127.0.0.1:{port}/protected/redirect_uri
OIDCCryptoPassphrase {os.urandom(16).hex()}
OIDCScope "openid email"
OIDCPKCEMethod S256
OIDCRemoteUserClaim email

<Directory {root}/htdocs/protected>
    Options +Includes
    AuthType openid-connect
    Require valid-user
</Directory>
""")
    process = subprocess.Popen([APACHE, "-f", config, "-DFOREGROUND"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    for _ in range(100):
        try:
            import socket
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"apache2 exited: {process.stderr.read()[-2000:]}")
            time.sleep(0.1)
    raise SystemExit("apache2 did not listen")


def main():
    if not (os.path.exists(APACHE) and os.path.exists(os.path.join(MODULES, "mod_auth_openidc.so"))):
        print("SKIP test_oidc_apache: apache2 or libapache2-mod-auth-openidc is not installed "
              "(apt-get install apache2 libapache2-mod-auth-openidc, or scripts/bootstrap --test)")
        return
    port = free_port()
    with postern(owners=[(OWNER, PASSWORD)]) as base:
        base.env = {}  # postern_command runs the CLI with the server's settings
        out = postern_command(base, "oauth", "client", "create", "--name", "Apache",
                              "--redirect-uri", f"http://127.0.0.1:{port}/protected/redirect_uri")
        fields = dict(line.split(": ", 1) for line in out.splitlines() if line.startswith("client_"))
        client_id, secret = fields["client_id"], fields["client_secret"].split("  ", 1)[0]
        check("openid" in out and client_id, "oauth client create --redirect-uri makes a relying party")
        root = tempfile.mkdtemp(prefix="postern-apache-")
        apache = start_apache(root, port, str(base), client_id, secret)
        try:
            browser = FormDriver(str(base))
            # As a browser asks: mod_auth_openidc answers 401, not a redirect, to a client that takes no HTML.
            browser.opener.addheaders.append(("Accept", "text/html,application/xhtml+xml"))
            protected = f"http://127.0.0.1:{port}/protected/"
            status, location, _ = browser.request("GET", protected)
            check(status == 302 and location.startswith(str(base) + "/oauth/authorize?"),
                  f"mod_auth_openidc sends a browser without a session to Postern ({status} {location})")
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
            check(query.get("code_challenge_method") == "S256" and query.get("nonce") and query.get("state"),
                  "with PKCE S256, a nonce and a state")
            status, location, html = browser.consent_page(location, OWNER, PASSWORD)
            form = browser.forms(html).form("/oauth/openid-consent")
            status, location, _ = browser.request("POST", form["action"], browser.hidden(form) | {"decision": "approve"})
            check(status == 303 and location.startswith(f"http://127.0.0.1:{port}/protected/redirect_uri?code="),
                  f"consent sends the browser back with a code ({status})")
            status, location, _ = browser.request("GET", location)
            check(status == 302 and location in (protected, "/protected/"),
                  f"mod_auth_openidc redeemed the code and validated the ID token ({status} {location})")
            status, _, page = browser.request("GET", protected)
            check(status == 200 and f'<p id="email">{OWNER}</p>' in page,
                  f"the protected page shows the owner's email claim ({status} {page.strip()[:200]})")
        finally:
            apache.terminate()
            apache.wait(timeout=10)
            if check.failures:
                with open(os.path.join(root, "error.log")) as log:
                    print(log.read()[-3000:])
            shutil.rmtree(root, ignore_errors=True)
    check.finish("test_oidc_apache")


if __name__ == "__main__":
    main()
