"""Mail clients set themselves up (issue 87 item 4): Thunderbird's autoconfig document, fetched at both places
Thunderbird looks (`/.well-known/autoconfig/mail/config-v1.1.xml?emailaddress=` and `/mail/config-v1.1.xml` on an
`autoconfig.` host), parsed as Thunderbird reads it, and every server in it reached as it says (`SSL` from the first
byte, `STARTTLS` on the plaintext port, the configured certificate verified) and signed in to with the user name it
gives (`%EMAILADDRESS%`) and the account's password: imaplib for IMAP, poplib for POP3, smtplib for SMTP. Outlook's
autodiscover (`POST /autodiscover/autodiscover.xml`) names the same servers; an address on a domain not served here is
Thunderbird's 404 and autodiscover's error 600, and a request without an address Thunderbird's 400."""

import imaplib
import os
import poplib
import smtplib
import ssl
import sys
import urllib.parse
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, http, postern
from postern_testkit import line_clients
from postern_testkit.mailtd import create_account, domains

PASSWORD = "correct horse battery staple"
AUTODISCOVER_NS = "{http://schemas.microsoft.com/exchange/autodiscover/outlook/responseschema/2006a}"
check = Checks()


# Each protocol's client as Thunderbird's socket types open it: (plaintext class, TLS class, STARTTLS, sign-in that
# returns whether it succeeded, sign-out).
CLIENTS = {
    "imap": (lambda h, p: imaplib.IMAP4(h, p, timeout=30),
             lambda h, p, c: imaplib.IMAP4_SSL(h, p, ssl_context=c, timeout=30),
             lambda client, c: client.starttls(ssl_context=c),
             lambda client, user: client.login(user, PASSWORD)[0] == "OK", lambda client: client.logout()),
    "pop3": (lambda h, p: poplib.POP3(h, p, timeout=30),
             lambda h, p, c: poplib.POP3_SSL(h, p, context=c, timeout=30),
             lambda client, c: client.stls(context=c),
             lambda client, user: client.user(user) and client.pass_(PASSWORD).startswith(b"+OK"),
             lambda client: client.quit()),
    "smtp": (lambda h, p: smtplib.SMTP(h, p, timeout=30),
             lambda h, p, c: smtplib.SMTP_SSL(h, p, context=c, timeout=30),
             lambda client, c: client.starttls(context=c),
             lambda client, user: client.login(user, PASSWORD)[0] == 235, lambda client: client.quit()),
}


def sign_in(server, address, context):
    """Connects to one <incomingServer>/<outgoingServer> as Thunderbird would and signs in; whether it could."""
    plain, tls, starttls, login, logout = CLIENTS[server.get("type")]
    host, port, socket_type = server.findtext("hostname"), int(server.findtext("port")), server.findtext("socketType")
    client = tls(host, port, context) if socket_type == "SSL" else plain(host, port)
    if socket_type == "STARTTLS":
        starttls(client, context)
    signed_in = login(client, server.findtext("username").replace("%EMAILADDRESS%", address))
    logout(client)
    return signed_in


def main():
    with line_clients.tls_environment("postern-autoconfig-tls-") as (env, ca):
        run(env, ca)
    check.finish("test_mail_autoconfig")


def run(env, ca):
    context = ssl.create_default_context(cafile=ca.cert)
    with postern(env=env) as server:
        address = "autoconfig-user@" + domains(server)[0]
        create_account(server, address, password=PASSWORD)
        query = "?emailaddress=" + urllib.parse.quote(address)
        status, headers, well_known = http(server, "GET", "/.well-known/autoconfig/mail/config-v1.1.xml" + query)
        check(status == 200 and "xml" in headers.get("Content-Type", ""),
              f"the well-known autoconfig document is served as XML ({status}, {headers.get('Content-Type')})")
        status, _, host_form = http(server, "GET", "/mail/config-v1.1.xml" + query)
        check(status == 200 and host_form == well_known, "the autoconfig. host's path serves the same document")

        provider = ET.fromstring(well_known).find("emailProvider")
        check(provider is not None and provider.findtext("domain") == domains(server)[0],
              f"the document names the address's domain ({provider.findtext('domain') if provider else None})")
        servers = provider.findall("incomingServer") + provider.findall("outgoingServer")
        kinds = sorted({(s.get("type"), s.findtext("socketType")) for s in servers})
        check({("imap", "SSL"), ("imap", "STARTTLS"), ("pop3", "SSL"), ("pop3", "STARTTLS")} <= set(kinds),
              f"it names IMAP and POP3, each with implicit TLS and STARTTLS ({kinds})")
        check(provider.find("incomingServer").findtext("socketType") == "SSL",
              "implicit TLS is offered first (RFC 8314)")
        for entry in servers:
            what = f"{entry.get('type')} {entry.findtext('hostname')}:{entry.findtext('port')} " \
                   f"{entry.findtext('socketType')}"
            try:
                check(sign_in(entry, address, context), f"{what}: reached and signed in as the document says")
            except Exception as error:  # noqa: BLE001 - reported as the check that failed
                check(False, f"{what}: reached and signed in as the document says ({error!r})")

        request = ("<?xml version=\"1.0\" encoding=\"utf-8\"?><Autodiscover xmlns=\"http://schemas.microsoft.com/"
                   "exchange/autodiscover/outlook/requestschema/2006\"><Request><EMailAddress>" + address +
                   "</EMailAddress><AcceptableResponseSchema>" + AUTODISCOVER_NS.strip("{}") +
                   "</AcceptableResponseSchema></Request></Autodiscover>").encode()
        status, _, answer = http(server, "POST", "/autodiscover/autodiscover.xml", request,
                                 headers={"Content-Type": "text/xml"})
        protocols = ET.fromstring(answer).findall(f".//{AUTODISCOVER_NS}Protocol")
        announced = sorted((p.findtext(f"{AUTODISCOVER_NS}Type"), int(p.findtext(f"{AUTODISCOVER_NS}Port")))
                           for p in protocols)
        expected = sorted((s.get("type").upper(), int(s.findtext("port"))) for s in servers)
        check(status == 200 and announced == expected,
              f"autodiscover names the same servers ({announced} against {expected})")
        check(all(p.findtext(f"{AUTODISCOVER_NS}LoginName") == address for p in protocols),
              "autodiscover's login name is the address")

        status, _, _ = http(server, "GET", "/mail/config-v1.1.xml?emailaddress=ann%40elsewhere.example")
        check(status == 404, f"an address on another domain: 404 ({status})")
        status, _, _ = http(server, "GET", "/mail/config-v1.1.xml")
        check(status == 400, f"no address: 400 ({status})")
        status, _, refused = http(server, "POST", "/autodiscover/autodiscover.xml",
                                  b"<EMailAddress>ann@elsewhere.example</EMailAddress>")
        check(status == 200 and "<ErrorCode>600</ErrorCode>" in refused,
              f"autodiscover for another domain: error 600 ({status})")


if __name__ == "__main__":
    main()
