"""App passwords (issue 87 item 2) as real clients nobody here wrote use them, against `postern serve --profile test`
with a public URL of https://passkeys.localhost (the passkeys' RP ID) and submission on TLS from a local CA. An owner
made by `postern owner create` registers a passkey (the test kit's software authenticator), removes their password
and signs in with the passkey alone: a passkey-only owner, who has nothing a mail client could type. From that fresh
passkey sign-in they make, on /owner/app-passwords, an app password for IMAP and submission of their inbox, and one for
POP3 only. Debian's `msmtp`, unmodified, sends through submission (implicit TLS) with the first, and Debian's
`neomutt`, unmodified, on a pseudo-terminal, reads the message over IMAP with it. Each door takes an app password only
if it was made for it (POP3 `-ERR`, IMAP `NO [AUTHENTICATIONFAILED]`, submission `535 5.7.8`), and none is taken at a
web sign-in (/owner 401, /inbox 401), at /oauth/token (the password grant 400 `unsupported_grant_type`, as a client
secret 401 `invalid_client`) or at JMAP (401, Basic or Bearer). Revoked, it opens nothing at once. Sign-ins and
refusals are on the audit trail as an app password's. The Apple Mail profile downloaded from the same page reads back
(plistlib) with the servers autoconfig names and a new app password that opens IMAP. Skipped, with the reason, where neomutt or msmtp is missing
(`apt-get install neomutt msmtp`; `scripts/bootstrap --test` installs both)."""

import base64
import http.client
import imaplib
import json
import os
import plistlib
import poplib
import re
import shutil
import smtplib
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, postern
from postern_testkit.line_clients import mailbox_sign_ins, tls_environment
from test_imap_neomutt import settings, tagged_subjects
from test_passkeys import PASSWORD, PUBLIC, RP_ID, Browser, SoftwareAuthenticator
from test_submission_clients import msmtp

EMAIL = "keys-only@example.com"
checks = Checks()
SECRET = re.compile(r'<pre id="app-password-secret" class="key">([a-z-]+)</pre>')
OPTION = re.compile(r'<option value="([^"]+)">([^<]+)</option>')
ROW = re.compile(r'<div class="row app-password" id="app-password-([A-Za-z0-9_-]+)"')


def check(condition, what, detail=""):
    checks(condition, what if condition or not detail else f"{what} ({detail})")


def passkey_only(browser):
    """Signs the owner in with their password, registers a passkey and an inbox, removes the password and signs in
    again with the passkey alone; the authenticator and the inbox's (id, address)."""
    key = SoftwareAuthenticator("es256", RP_ID, PUBLIC)
    check(browser.sign_in_password(EMAIL) == 303, "the owner signs in with the password the operator set")
    check(browser.register(key.register(browser.registration_options()), "phone") == "passkey.added",
          "they register a passkey")
    browser.send("POST", "/owner/inboxes", {"csrf_token": browser.csrf("/owner"), "username": "mutt-keys"})
    status, _, _ = browser.send("POST", "/owner/password/remove",
                                {"csrf_token": browser.csrf("/owner"), "password": PASSWORD})
    check(status == 303, "they remove their password", f"{status}")
    browser.sign_out()
    check(browser.sign_in_password(EMAIL) == 401, "the password signs them in no more: a passkey-only owner")
    token, request = browser.sign_in_options()
    status, _, _ = browser.sign_in(token, key.sign_in(request))
    check(status == 303 and browser.signed_in(), "the passkey alone signs them in", f"{status}")
    inboxes = OPTION.findall(browser.send("GET", "/owner/app-passwords")[2])
    check(len(inboxes) >= 1, "the app passwords page offers their inbox", f"{inboxes}")
    return inboxes[0]


def make(browser, inbox, name, doors):
    """Makes an app password on /owner/app-passwords: (status, secret, id)."""
    fields = [("csrf_token", browser.csrf("/owner/app-passwords")), ("name", name), ("inbox", inbox)]
    fields += [("door", door) for door in doors]
    connection = http.client.HTTPConnection(browser.host, browser.port, timeout=60)
    connection.request("POST", "/owner/app-passwords", body=urllib.parse.urlencode(fields), headers={
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items())})
    response = connection.getresponse()
    page = response.read().decode()
    connection.close()
    secret = SECRET.search(page)
    rows = ROW.findall(page)
    return response.status, secret.group(1) if secret else None, rows[0] if rows else None


def apple_mail(browser, server, inbox, address):
    """Downloads the Apple Mail profile on /owner/app-passwords and reads it as a device does (plistlib): its mail
    payload names the servers autoconfig names, and the app password made for it signs in to IMAP."""
    connection = http.client.HTTPConnection(browser.host, browser.port, timeout=60)
    connection.request("POST", "/owner/app-passwords/apple-mail", body=urllib.parse.urlencode(
        {"csrf_token": browser.csrf("/owner/app-passwords"), "inbox": inbox}), headers={
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items())})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    check(response.status == 200 and response.getheader("Content-Type") == "application/x-apple-aspen-config"
          and response.getheader("Content-Disposition", "").startswith("attachment"),
          "the Apple Mail profile downloads as application/x-apple-aspen-config", f"{response.status}")
    profile = plistlib.loads(body)
    mail = profile["PayloadContent"][0]
    check(profile["PayloadType"] == "Configuration" and mail["PayloadType"] == "com.apple.mail.managed"
          and mail["EmailAddress"] == address and mail["IncomingMailServerUsername"] == address
          and mail["IncomingMailServerPortNumber"] == server.imaps_port
          and mail["OutgoingMailServerPortNumber"] == server.submissions_port
          and mail["IncomingMailServerHostName"] == urllib.parse.urlsplit(PUBLIC).hostname,
          "its com.apple.mail.managed payload names IMAP and submission (implicit TLS) as autoconfig does",
          f"{mail.get('IncomingMailServerPortNumber')} {mail.get('OutgoingMailServerPortNumber')}")
    check(imap_login(server, address, mail["IncomingPassword"]) == "OK",
          "the app password made for the profile signs in to IMAP")


def imap_login(server, address, secret):
    """IMAP LOGIN's answer: 'OK', or the refusal's text."""
    client = imaplib.IMAP4("127.0.0.1", server.imap_port, timeout=30)
    try:
        return client.login(address, secret)[0]
    except imaplib.IMAP4.error as error:
        return str(error)
    finally:
        try:
            client.logout()
        except (imaplib.IMAP4.error, OSError):
            pass


def pop3_login(server, address, secret):
    client = poplib.POP3("127.0.0.1", server.pop3_port, timeout=30)
    try:
        client.user(address)
        return client.pass_(secret).decode()
    except poplib.error_proto as error:
        return str(error)
    finally:
        try:
            client.quit()
        except (poplib.error_proto, OSError):
            pass


def submission_auth(server, address, secret):
    """AUTH PLAIN's reply on the submission port (loopback: no STARTTLS needed)."""
    with smtplib.SMTP("127.0.0.1", server.submission_port, timeout=30) as smtp:
        smtp.ehlo()
        plain = base64.b64encode(f"\0{address}\0{secret}".encode()).decode()
        return smtp.docmd("AUTH", "PLAIN " + plain)


def web(server, method, path, fields=None, headers=None):
    parsed = urllib.parse.urlsplit(server)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
    body = urllib.parse.urlencode(fields) if fields is not None else None
    sent = dict(headers or {})
    if body is not None:
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request(method, path, body=body, headers=sent)
    response = connection.getresponse()
    text = response.read().decode("utf-8", "replace")
    connection.close()
    return response.status, text


def refusals(server, address, both, pop_only):
    check(pop3_login(server, address, pop_only).startswith("+OK"), "POP3 takes the POP3 app password")
    answer = pop3_login(server, address, both)
    check(answer.startswith("b'-ERR"), "POP3 refuses the IMAP+submission app password: -ERR", answer)
    answer = imap_login(server, address, pop_only)
    check("AUTHENTICATIONFAILED" in answer, "IMAP refuses the POP3 one: NO [AUTHENTICATIONFAILED]", answer)
    code, text = submission_auth(server, address, pop_only)
    check(code == 535 and text.startswith(b"5.7.8"), "submission refuses the POP3 one: 535 5.7.8", f"{code} {text}")
    code, text = submission_auth(server, address, both)
    check(code == 235, "submission takes the IMAP+submission one: 235", f"{code} {text}")

    owner_browser = Browser(server)
    token = owner_browser.csrf("/owner/sign-in")
    for secret in (both, pop_only):
        status, _, _ = owner_browser.send("POST", "/owner/sign-in", {
            "csrf_token": token, "email": EMAIL, "password": secret, "next": "/owner"})
        check(status == 401, "/owner/sign-in refuses an app password as the owner's password: 401", f"{status}")
        inbox_browser = Browser(server)
        status, _, _ = inbox_browser.send("POST", "/inbox/sign-in", {
            "csrf_token": inbox_browser.csrf("/inbox/sign-in"), "kind": "account", "address": address,
            "password": secret})
        check(status == 401, "/inbox/sign-in refuses an app password with the inbox's address: 401", f"{status}")
    # A registered public client (RFC 7591), so that what is refused is the grant, not the client.
    parsed = urllib.parse.urlsplit(server)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
    connection.request("POST", "/oauth/register", body=json.dumps({
        "client_name": "mutt", "redirect_uris": ["http://127.0.0.1:9/callback"], "application_type": "native"}),
        headers={"Content-Type": "application/json"})
    client_id = json.loads(connection.getresponse().read())["client_id"]
    connection.close()
    status, text = web(server, "POST", "/oauth/token", {
        "grant_type": "password", "username": address, "password": both, "client_id": client_id})
    check(status == 400 and json.loads(text).get("error") == "unsupported_grant_type",
          "/oauth/token: the password grant with an app password is 400 unsupported_grant_type", f"{status} {text}")
    basic = base64.b64encode(f"{address}:{both}".encode()).decode()
    status, text = web(server, "POST", "/oauth/token", {"grant_type": "client_credentials"},
                       {"Authorization": f"Basic {basic}"})
    check(status == 401 and json.loads(text).get("error") == "invalid_client",
          "/oauth/token: an app password as a client secret is 401 invalid_client", f"{status} {text}")
    for scheme, credential in (("Basic", basic), ("Bearer", both)):
        status, text = web(server, "GET", "/.well-known/jmap", headers={"Authorization": f"{scheme} {credential}"})
        check(status == 401, f"JMAP refuses an app password ({scheme}): 401", f"{status} {text[:200]}")


def main():
    missing = [tool for tool in ("neomutt", "msmtp") if shutil.which(tool) is None]
    if missing:
        print(f"test_app_passwords: SKIPPED: {' and '.join(missing)} not installed "
              "(apt-get install neomutt msmtp; scripts/bootstrap --test)")
        return
    directory = tempfile.mkdtemp(prefix="postern-app-passwords-")
    try:
        with tls_environment("postern-app-passwords-tls-") as (env, ca):
            with postern(env=env | {"POSTERN_PUBLIC_URL": PUBLIC}, owners=[(EMAIL, PASSWORD)]) as server:
                started = time.monotonic()
                browser = Browser(server)
                inbox, address = passkey_only(browser)
                status, both, both_id = make(browser, inbox, "mutt and msmtp", ["imap", "submission"])
                check(status == 201 and both is not None and len(both.replace("-", "")) == 28,
                      "a fresh passkey session makes an app password, shown once", f"{status}")
                status, pop_only, _ = make(browser, inbox, "pop3 only", ["pop3"])
                check(status == 201 and pop_only is not None, "and one for POP3 only", f"{status}")

                subject = "sent by msmtp with an app password"
                status, transcript = msmtp(server, ca, address, both, address, address, subject)
                check(status == 0, "msmtp sends through submission (implicit TLS) with the app password",
                      f"{status}: {transcript[-400:]}")
                subjects, drawn = tagged_subjects(
                    settings(directory, server, address, both), "~A", os.path.join(directory, "all.mbox"))
                check(subject in subjects, "neomutt reads it over IMAP with the same app password",
                      f"{subjects}; {drawn!r}")

                apple_mail(browser, server, inbox, address)
                refusals(server, address, both, pop_only)

                status, _, _ = browser.send("POST", f"/owner/app-passwords/{both_id}/revoke",
                                            {"csrf_token": browser.csrf("/owner/app-passwords")})
                check(status == 200, "the owner revokes it", f"{status}")
                answer = imap_login(server, address, both)
                check("AUTHENTICATIONFAILED" in answer, "revoked, it opens IMAP no more, at once", answer)

                trail = [(e["action"], json.dumps(e.get("details"))) for e in mailbox_sign_ins(server)]
                check(any(a == "mailbox.signin" and '"app_password"' in d and '"imap"' in d for a, d in trail)
                      and any(a == "mailbox.signin" and '"submission"' in d and '"app_password"' in d
                              for a, d in trail)
                      and any(a == "mailbox.signin_failed" and '"app_password"' in d for a, d in trail),
                      "sign-ins and refusals are on the audit trail as an app password's", f"{trail[-4:]}")
                print(f"test_app_passwords: done in {time.monotonic() - started:.1f} s")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    checks.finish("test_app_passwords")


if __name__ == "__main__":
    main()
