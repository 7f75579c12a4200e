"""Dovecot's imaptest, for the tests that run it (Tests/Clients/test_imaptest.py's scripted groups, the cluster
stage's stress mode): it comes from the development machine's shared tools (../shared/tools/imaptest, outside this
repository), built once into ~/.cache/postern/imaptest; a clone without ../shared/ has none, and its tests skip with
a message naming where they looked.

    binary = imaptest.binary()           # None: skip, saying imaptest.SHARED is missing
    subprocess.run([binary, "host=127.0.0.1", ...], env=imaptest.ENV)
"""

import fcntl
import os
import subprocess
import sys

from .server import ROOT

SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "tools", "imaptest"))
BUILT = os.path.expanduser("~/.cache/postern/imaptest")
# imaptest links Dovecot's own libraries, which Debian keeps outside the loader's path.
ENV = {"LD_LIBRARY_PATH": "/usr/lib/dovecot"}
# What its build needs: Dovecot's headers and the library they describe, autotools and a C compiler.
PACKAGES = ("dovecot-core", "dovecot-dev", "autoconf", "automake", "libtool", "make", "gcc")


def binary():
    """The imaptest binary, built from the shared tools when missing; None without them. Two stages asking at once
    (the client tests' scripted groups, the cluster stage's stress mode) build it once: the second waits on the
    first's lock. Its Debian packages come through scripts/bootstrap first: the shared build installs dovecot-dev
    alone, whose headers do not bring libdovecot (dovecot-core) to link against, and its own apt-get would race the
    other stages' installs."""
    if not os.path.isdir(SHARED):
        return None
    built = os.path.join(BUILT, "imaptest")
    os.makedirs(os.path.dirname(BUILT), exist_ok=True)
    with open(BUILT + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(built):
            subprocess.run([os.path.join(ROOT, "scripts", "bootstrap"), *PACKAGES], check=True, stdout=sys.stderr)
            subprocess.run([os.path.join(SHARED, "build"), BUILT], check=True)
    return built


def skipped(test):
    """The line a test prints when there is no imaptest."""
    return (f"{test}: skipped: no {SHARED} (imaptest is a development machine's shared tool, not part of this "
            "repository)")


def stress_mbox(path, count=100):
    """Writes an mbox of `count` messages for imaptest's stress mode to APPEND from: each with its own Message-ID
    (imaptest tracks a message's ENVELOPE, size and body by it, so two messages sharing one would read as a server
    that changed a message), every third a multipart/mixed of text and HTML. Returns `path`."""
    with open(path, "w") as out:
        for i in range(count):
            second = f"{i % 60:02d}"
            out.write(f"From sender{i}@example.org Thu Nov 27 10:00:{second} 2026\n"
                      f"From: Sender {i} <sender{i}@example.org>\nTo: rcpt{i % 7}@example.com\nSubject: message {i}\n"
                      f"Date: Thu, 27 Nov 2026 10:00:{second} +0000\nMessage-ID: <m{i}@stress.example>\n")
            if i % 3 == 0:
                out.write('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n--b\n'
                          f"Content-Type: text/plain\n\npart one of {i}\n--b\nContent-Type: text/html\n\n<p>two</p>\n"
                          "--b--\n\n")
            else:
                out.write("\n" + f"line {i}\n" * (1 + i % 5) + "\n")
    return path
