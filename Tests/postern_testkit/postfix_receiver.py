"""A real Postfix (Debian's package) as a private instance in a test's directory: `postfix -c DIR/etc`, its own
queue, data directory, log and master.cf, so the system's Postfix (configured or not) is neither read nor touched.

`PostfixReceiver` is the receiving MTA of the outbound tests: smtpd on ADDRESS:25 (127.0.0.2 by default; root binds
it), STARTTLS offered (`smtpd_tls_security_level=may`) with a certificate the test's own CA signed, virtual mailbox
domains delivered to a Maildir per address under DIR/mail/<domain>/<local part>/ (the addresses given as `mailboxes`
or added with `add_mailbox`; any other address of those domains is refused 550 "User unknown in virtual mailbox
table", as a real domain refuses), and a `check_recipient_access`
map the test edits between attempts (`refuse(address, "550 5.1.1 ...")`, `accept(address)`: postmap, then
`postfix reload`), so a recipient can be refused for good (5xx) or for now (4xx) and later taken. `offer_tls(False)`
stops offering STARTTLS (a downgraded path), `offer_tls(True)` offers it again.
`mynetworks=127.0.0.0/8`: loopback clients may relay, nothing else reaches it.

`PostfixRelay` is a sending Postfix (the bench's reference): smtpd on its own loopback address taking mail from
smtp-source, relaying everything to `[receiver]:25` with STARTTLS, verified against the same CA.

Both need root (Postfix drops privileges to its own users; port 25). `ensure_postfix()` installs the package with
scripts/bootstrap (apt-get, non-interactive) when /usr/sbin/postfix is missing; no Postfix service is started by it
(the machine's policy-rc.d, or its absence of an init system, decides that), and none is needed.

    ca = LocalCA(os.path.join(work, "ca"))
    with PostfixReceiver(os.path.join(work, "mx"), ca, domains=("dest.test",)) as mx:
        mx.refuse("nobody@dest.test", "550 5.1.1 no such user")
        ...  # deliver
        mx.messages("someone@dest.test")   # -> [bytes of each message, oldest first]
"""

import os
import shutil
import socket
import subprocess
import time

from .server import ROOT

POSTFIX = "/usr/sbin/postfix"
POSTMAP = "/usr/sbin/postmap"
NOBODY = 65534  # the virtual delivery agent writes the Maildirs as nobody:nogroup


def ensure_postfix():
    """Installs Debian's postfix (its binaries, postmap, smtp-source) through scripts/bootstrap when missing."""
    if not os.path.exists(POSTFIX) or not os.path.exists("/usr/sbin/smtp-source"):
        subprocess.run([os.path.join(ROOT, "scripts", "bootstrap"), "postfix"], check=True)


def wait_banner(address, port=25, timeout=30.0):
    """Waits until an SMTP server on (address, port) sends its 220 greeting; returns the greeting line."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((address, port), timeout=5) as connection:
                line = connection.makefile("rb").readline().decode(errors="replace").strip()
                if line.startswith("220"):
                    return line
        except OSError:
            pass
        if time.monotonic() >= deadline:
            raise TimeoutError(f"no SMTP greeting on {address}:{port} after {timeout:.0f} s")
        time.sleep(0.1)


def wait_closed(address, port=25, timeout=30.0):
    """Waits until nothing accepts connections on (address, port)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((address, port), timeout=1).close()
        except OSError:
            return
        time.sleep(0.1)
    raise TimeoutError(f"{address}:{port} still accepts connections after {timeout:.0f} s")


class _Postfix:
    """What both instances share: the directory, master.cf from Debian's without chroot, start/stop/reload."""

    def __init__(self, directory, address, hostname):
        self.dir = os.path.abspath(directory)
        self.address, self.hostname = address, hostname
        self.etc = os.path.join(self.dir, "etc")
        self.log = os.path.join(self.dir, "maillog")
        self.running = False

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def main_cf(self):
        """The instance's own main.cf lines (beyond the common ones)."""
        raise NotImplementedError

    def write_config(self):
        ensure_postfix()
        for name in ("etc", "spool", "data"):
            os.makedirs(self.path(name), exist_ok=True)
        # The parents must be traversable by the postfix user and by nobody (the Maildirs); the test's tree only.
        os.chmod(self.dir, 0o755)
        os.chmod(os.path.dirname(self.dir), 0o755)
        shutil.chown(self.path("data"), "postfix")
        for name in ("dynamicmaps.cf", "postfix-files"):
            shutil.copy(os.path.join("/etc/postfix", name), self.etc)
        for name in ("dynamicmaps.cf.d", "postfix-files.d"):
            if os.path.isdir(os.path.join("/etc/postfix", name)):
                shutil.copytree(os.path.join("/etc/postfix", name), os.path.join(self.etc, name), dirs_exist_ok=True)
        with open(os.path.join(self.etc, "master.cf"), "w") as out:
            out.write(self.master_cf())
        common = [
            "compatibility_level = 3.6",
            f"queue_directory = {self.path('spool')}",
            f"data_directory = {self.path('data')}",
            f"maillog_file = {self.log}",
            f"maillog_file_prefixes = {self.dir}",
            f"syslog_name = postern-test-{self.address}",
            # Postfix refuses an inet_interfaces address no interface holds (lo holds 127.0.0.1/8 as one): master.cf
            # binds ADDRESS:25 by name instead.
            "inet_interfaces = loopback-only",
            "inet_protocols = ipv4",
            f"myhostname = {self.hostname}",
            "myorigin = $myhostname",
            "mydestination =",
            "local_recipient_maps =",
            "alias_maps =",
            "alias_database =",
            "mynetworks = 127.0.0.0/8",
            "biff = no",
            "smtputf8_enable = no",
            "smtpd_banner = $myhostname ESMTP",
        ]
        with open(os.path.join(self.etc, "main.cf"), "w") as out:
            out.write("\n".join(common + self.main_cf()) + "\n")

    def master_cf(self):
        """Debian's master.cf with every service out of chroot (the private queue directory holds no copy of /etc)
        and the public smtpd on ADDRESS:25 only."""
        lines = []
        with open("/etc/postfix/master.cf") as source:
            for line in source:
                fields = line.split()
                if line[:1].isspace() or line.startswith("#") or len(fields) < 8:
                    lines.append(line)
                    continue
                if fields[1] == "inet" and fields[0] != "smtp":
                    continue  # no submission, smtps or postscreen
                if fields[1] == "inet":
                    fields[0] = f"{self.address}:25"
                fields[4] = "n"
                lines.append(" ".join(fields[:8]) + (" " + " ".join(fields[8:]) if fields[8:] else "") + "\n")
        return "".join(lines)

    def postfix(self, *command):
        return subprocess.run([POSTFIX, "-c", self.etc, *command], capture_output=True, text=True)

    def start(self):
        """Starts the instance and returns once its smtpd greets."""
        result = self.postfix("start")
        if result.returncode != 0:
            raise RuntimeError(f"postfix start: {result.stderr.strip()} (see {self.log})")
        self.running = True
        return wait_banner(self.address)

    def stop(self):
        """Stops the instance (mail in its queue stays there) and returns once ADDRESS:25 refuses connections."""
        if self.running:
            self.postfix("stop")
            self.running = False
            wait_closed(self.address)

    def reload(self):
        result = self.postfix("reload")
        if result.returncode != 0:
            raise RuntimeError(f"postfix reload: {result.stderr.strip()}")

    def clean(self):
        """Stops the instance and removes its directory."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def log_text(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def __enter__(self):
        self.write_config()
        self.start()
        return self

    def __exit__(self, *exc):
        self.clean()


class PostfixReceiver(_Postfix):
    """The receiving MTA: see the module's documentation."""

    def __init__(self, directory, ca, address="127.0.0.2", hostname="mx.dest.test", domains=("dest.test",),
                 mailboxes=()):
        super().__init__(directory, address, hostname)
        self.ca, self.domains = ca, tuple(domains)
        self.mail = self.path("mail")
        self.access = {}
        self.mailboxes = {address.lower() for address in mailboxes}

    def main_cf(self):
        cert, key = self.ca.issue(self.hostname, ips=(self.address,))
        return [
            f"virtual_mailbox_domains = {' '.join(self.domains)}",
            f"virtual_mailbox_base = {self.mail}",
            f"virtual_mailbox_maps = hash:{os.path.join(self.etc, 'mailboxes')}",
            f"virtual_uid_maps = static:{NOBODY}",
            f"virtual_gid_maps = static:{NOBODY}",
            "relay_domains =",
            "smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination",
            # The access map first: permit_mynetworks would end the list before it for a loopback client.
            f"smtpd_recipient_restrictions = check_recipient_access hash:{os.path.join(self.etc, 'recipient_access')},"
            " permit_mynetworks, reject_unauth_destination",
            "smtpd_tls_security_level = may",
            f"smtpd_tls_cert_file = {cert}",
            f"smtpd_tls_key_file = {key}",
            "smtpd_tls_received_header = yes",
            "smtpd_tls_loglevel = 1",
            "smtp_dns_support_level = disabled",
        ]

    def write_config(self):
        super().write_config()
        os.makedirs(self.mail, exist_ok=True)
        os.chown(self.mail, NOBODY, NOBODY)
        self.write_mailboxes()
        self.write_access()

    def write_mailboxes(self):
        # Postfix allows no regexp substitution in this map (a path from a remote's input): one line an address,
        # its Maildir (the trailing slash) named after it.
        path = os.path.join(self.etc, "mailboxes")
        with open(path, "w") as out:
            for address in sorted(self.mailboxes):
                local, _, domain = address.partition("@")
                out.write(f"{address} {domain}/{local}/\n")
        subprocess.run([POSTMAP, path], check=True, capture_output=True)

    def add_mailbox(self, *addresses):
        """Each of `addresses` has a Maildir from now on (mail to it is taken)."""
        self.mailboxes.update(address.lower() for address in addresses)
        if os.path.isdir(self.etc):
            self.write_mailboxes()
            if self.running:
                self.reload()

    def write_access(self):
        path = os.path.join(self.etc, "recipient_access")
        with open(path, "w") as out:
            for address, action in sorted(self.access.items()):
                out.write(f"{address} {action}\n")
        subprocess.run([POSTMAP, path], check=True, capture_output=True)

    def refuse(self, address, reply):
        """From now on RCPT TO:<address> gets `reply` ("550 5.1.1 ..." or "450 4.2.0 ...")."""
        self.access[address.lower()] = reply
        self._apply()

    def accept(self, address):
        """From now on `address` is taken again (its access entry removed)."""
        self.access.pop(address.lower(), None)
        self._apply()

    def _apply(self):
        if os.path.isdir(self.etc):
            self.write_access()
            if self.running:
                self.reload()

    def offer_tls(self, offered):
        """STARTTLS offered (`smtpd_tls_security_level=may`) or not (`none`: what a receiver behind a STARTTLS-stripping
        middlebox looks like), then `postfix reload`."""
        level = "may" if offered else "none"
        subprocess.run(["/usr/sbin/postconf", "-c", self.etc, "-e", f"smtpd_tls_security_level = {level}"],
                       check=True, capture_output=True)
        if self.running:
            self.reload()

    def maildir(self, address):
        local, _, domain = address.lower().partition("@")
        return os.path.join(self.mail, domain, local)

    def messages(self, address):
        """The bytes of every message delivered to `address`, oldest first ([] when none)."""
        path = self.maildir(address)
        files = [os.path.join(path, sub, name) for sub in ("new", "cur") if os.path.isdir(os.path.join(path, sub))
                 for name in os.listdir(os.path.join(path, sub))]
        found = []
        for file in sorted(files, key=os.path.getmtime):
            with open(file, "rb") as f:
                found.append(f.read())
        return found

    def count(self):
        """How many messages every Maildir under DIR/mail holds together."""
        total = 0
        for root, _, files in os.walk(self.mail):
            if os.path.basename(root) in ("new", "cur"):
                total += len(files)
        return total


class PostfixRelay(_Postfix):
    """A sending Postfix: smtpd on `address`:25 for loopback clients, every message relayed to `[relay_to]:25` with
    STARTTLS verified against `ca` (the bench's reference for Postern's outbound delivery)."""

    def __init__(self, directory, ca, relay_to, relay_name="mx.dest.test", address="127.0.0.3",
                 hostname="relay.postfix.test"):
        super().__init__(directory, address, hostname)
        self.ca, self.relay_to, self.relay_name = ca, relay_to, relay_name

    def write_config(self):
        super().write_config()
        with open(os.path.join(self.etc, "tls_policy"), "w") as out:
            # The next hop is an address: the certificate is checked against the receiver's name instead.
            out.write(f"[{self.relay_to}]:25 verify match={self.relay_name}\n")

    def main_cf(self):
        return [
            f"relayhost = [{self.relay_to}]:25",
            f"smtp_bind_address = {self.address}",
            "relay_domains =",
            "smtpd_relay_restrictions = permit_mynetworks, reject",
            "smtp_dns_support_level = disabled",
            "smtp_tls_security_level = may",
            f"smtp_tls_policy_maps = texthash:{os.path.join(self.etc, 'tls_policy')}",
            f"smtp_tls_CAfile = {self.ca.cert}",
            "smtp_tls_loglevel = 1",
        ]
