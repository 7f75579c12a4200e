"""Dovecot's imaptest, for the tests that run it (Tests/Clients/test_imaptest.py's scripted groups, the cluster
stage's stress mode): it comes from the development machine's shared tools (../shared/tools/imaptest, outside this
repository), built once into ~/.cache/postern/imaptest; a clone without ../shared/ has none, and its tests skip with
a message naming where they looked.

    binary = imaptest.binary()           # None: skip, saying imaptest.SHARED is missing
    subprocess.run([binary, "host=127.0.0.1", ...], env=imaptest.ENV)
"""

import os
import subprocess

SHARED = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "tools",
                                       "imaptest"))
BUILT = os.path.expanduser("~/.cache/postern/imaptest")
# imaptest links Dovecot's own libraries, which Debian keeps outside the loader's path.
ENV = {"LD_LIBRARY_PATH": "/usr/lib/dovecot"}


def binary():
    """The imaptest binary, built from the shared tools when missing; None without them."""
    if not os.path.isdir(SHARED):
        return None
    if not os.path.exists(os.path.join(BUILT, "imaptest")):
        subprocess.run([os.path.join(SHARED, "build"), BUILT], check=True)
    return os.path.join(BUILT, "imaptest")


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
