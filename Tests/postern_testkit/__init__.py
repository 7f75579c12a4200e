"""What every Python test and benchmark of Postern shares: one place for ports, server spawn, the two proofs of work,
the OAuth form driver and small HTTP calls. Standard library only (`install_packages` fetches what a client test needs).

A caller puts the directory holding this package (`Tests/`) on sys.path with one line, then imports:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))   # from Tests/<Dir>/
    from postern_testkit import postern, http, Checks

- ports: `free_port()`, `free_ports(count)` (below the ephemeral range), `split_url(base)` -> (host, port)
- calls: `http(base, method, path, body, headers, bearer)` -> (status, headers, JSON or text)
- checks: `Checks` (one line per check, `finish` exits 1 on any failure)
- server: `ROOT`; `postern(env, pro_users, owners, data, backend)` (context manager, yields a `Server` URL; `backend`
  `sqlite` or `postgres`, a fresh database on the script's one pg-temp server) and `serve(binary,
  arguments, env)` (the JSON line of `serve --profile test`); `listening_url(log)` and
  `wait_listening(process, log, timeout)` (the `listening on` line of `serve --port 0`); `rss_kib(pid)`,
  `cpu_seconds(pid)`; `pip_target`, `install_packages`
- proofs: `solve((bearer, jti, salt, difficulty, params))` (agent scrypt), `mailbox_nonce(challenge)` (Mail.td
  SHA-256), `leading_zero_bits`, `DEFAULT_SALT`, `agent_signup(base, username)`, `agent_login(base, api_key)`
- forms: `FormDriver` (owner sign-in and OAuth consent forms, no browser), `NoRedirect` (a urllib handler)
- origin: `origin_server(body)` (a loopback remote-hash URL)
- cluster: the local PostgreSQL + N instances + HAProxy of `scripts/cluster` (`Cluster`, `main`); import it by name
- loopback_dns: a DNS server on 127.0.0.1 answering MX, A, AAAA and TXT from a zone the test edits (`start`, `query`,
  `txt_strings`); import it by name
- certificates: `LocalCA` (a test's own root and the server certificates it signs, with openssl)
- postfix_receiver: `PostfixReceiver` (a private Postfix on 127.0.0.2:25 with STARTTLS, Maildirs and a recipient
  access map), `PostfixRelay` (a sending Postfix relaying to it); import it by name
- smarthost: `Smarthost` (aiosmtpd with STARTTLS and AUTH required, recording what it takes); import it by name
- counting_mx: `CountingMX` (aiosmtpd as a plain MX keeping each message's Message-ID and sending client, able to
  hold one client's messages unanswered); import it by name
- webauthn: `SoftwareAuthenticator` (ES256, EdDSA, RS256 passkeys; registrations and assertions with any part forged;
  cryptography + cbor2, the latter installed by the test); import it by name
- jmap_agent: `JMAPAgent` (signup, capability tokens, send through Email/set + EmailSubmission/set, EmailSubmission
  get/changes, inbox, raw download) in plain HTTP JSON; import it by name
- browser: `make_driver` (headless Chromium: width, download directory, JavaScript off), `set_viewport`,
  `status_of` (a page's status with the browser's cookies), `download`; import it by name (needs selenium)
- accessibility: `assert_accessible`/`blocking_violations` (axe-core from axe-selenium-python: serious and critical
  violations), `unreachable_by_keyboard` (the actions Tab never reaches); import it by name
- hostile: `HitCounter` (a loopback HTTP server counting every request), `hostile_message`/`hostile_html` (every way
  an HTML mail runs code or reaches out, with a cid: image and an attachment), `arm_canary`/`canary`
  (`window.top.__pwned`); import it by name
- line_clients: `raw_exchange` (bytes to a line protocol's port, everything it answers), `poll`; import it by name
- mail_fixtures: `message` (raw MIME with attachments and inline parts), `png_pixel`, `deliver_smtp`, `deliver_cli`
  (`postern mail deliver`); import it by name
- tempmail: `install_clients` (pymailtm, mailtmapi, multitempmail, httpx-sse, pinned), `deliver` (a message to one
  address over SMTP); import it by name
- mailtd: `domains`, `create_account` (v1 password or v2 `auth_key`), `auth_key` (Argon2id through libargon2),
  `pro_login`, `pro_token`, `messages`; import it by name
- postgres: `BACKENDS` (the backends both-backend tests run on; `POSTERN_TEST_BACKENDS`), `fresh_database`, `psql`
  (the script's one scripts/pg-temp server, started on first need); import it by name
- oidc_mock: `mock_provider` (oidc-provider-mock from PyPI on loopback), `set_user`, `provider_env`,
  `ProviderBrowser` (a login through Postern, the provider and back, hop by hop), `postern_command`, `audit_events`;
  import it by name
- canaille: `canaille_provider` (Canaille, a production OpenID Connect provider, through pytest-iam from PyPI on
  loopback: PKCE and nonce required, dynamic client registration), `Canaille.register`, `Canaille.add_user`,
  `Canaille.sign_in` (its login and consent forms over HTTP); import it by name
- github: `FakeGitHub` (GitHub's authorize, access_token, /user and /user/emails on loopback, strict about PKCE, the
  client secret, the bearer token, the media type and a User-Agent); import it by name
- outbound: `OutboundWorld` (CA + loopback DNS + Postfix receiver, the settings pointing Postern at them, DKIM records
  from `postern dkim show` published), `dkim_results` (dkimpy), `until`, `cli`; import it by name
"""

from .calls import http
from .checks import Checks
from .forms import FormDriver, NoRedirect
from .origin import origin_server
from .ports import free_port, free_ports, split_url
from .proofs import DEFAULT_SALT, agent_login, agent_signup, leading_zero_bits, mailbox_nonce, solve
from .server import (
    ROOT, Server, cpu_seconds, install_packages, listening_url, pip_target, postern, rss_kib, serve, wait_listening,
)

__all__ = [
    "DEFAULT_SALT", "ROOT", "Checks", "FormDriver", "NoRedirect", "Server", "agent_login", "agent_signup", "cpu_seconds",
    "free_port", "free_ports", "http", "install_packages", "leading_zero_bits", "listening_url", "mailbox_nonce",
    "origin_server", "pip_target", "postern", "rss_kib", "serve", "solve", "split_url", "wait_listening",
]
