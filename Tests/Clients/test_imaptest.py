"""Dovecot's imaptest (its scripted conformance groups) against `postern serve --profile test` on SQLite and on
PostgreSQL (issue 70). imaptest comes from the development machine's shared tools (../shared/tools/imaptest, outside
this repository), built once into ~/.cache/postern/imaptest; a clone without ../shared/ skips with a message.

Each group runs alone in a fresh Mail.td account with box=imaptest, a mailbox of its own that the group's set-up makes
(folders are a store feature, decision 35), as Dovecot's own run does. A group that fails makes the test
fail unless Tests/Clients/imaptest-groups.tsv lists it with why; a listed group that passes fails the test too. The
groups that ran no command (their capability is not advertised) are printed as skipped."""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import Checks, imaptest, postern
from postern_testkit.checks import listed_with_why
from postern_testkit.mailtd import create_account, domains

HERE = os.path.dirname(os.path.abspath(__file__))
PASSWORD = "imaptest-password-1"
check = Checks()


def expected():
    """{group: (kind, why)} of the checked-in list."""
    return listed_with_why(os.path.join(HERE, "imaptest-groups.tsv"))


def run_groups(binary, backend):
    """Runs every group against a server on `backend`; returns {group: (failed, skipped, output)}."""
    tests = os.path.join(imaptest.BUILT, "tests")
    groups = sorted(f for f in os.listdir(tests) if not f.endswith(".mbox") and os.path.isfile(os.path.join(tests, f)))
    results = {}
    with postern(env={"POSTERN_MAILBOX_POW_REQUIRED": "off"}, backend=backend) as server:
        domain = domains(server)[0]
        for n, group in enumerate(groups):
            user = f"imaptest{n}@{domain}"
            create_account(server, user, password=PASSWORD)
            out = subprocess.run(
                [binary, "host=127.0.0.1", f"port={server.imap_port}", f"user={user}", f"pass={PASSWORD}",
                 "box=imaptest", f"test={os.path.join(tests, group)}"],
                env=imaptest.ENV, capture_output=True, text=True, timeout=300)
            text = out.stdout + out.stderr
            groups_failed = re.search(r"test groups: (\d+) failed", text)
            ran = re.findall(r"(\d+)/(\d+) individual commands failed", text)
            failed = (groups_failed is None or int(groups_failed.group(1)) > 0 or "Error:" in text
                      or any(int(f) > 0 for f, _ in ran))
            skipped = not failed and all(int(total) == 0 for _, total in ran)
            results[group] = (failed, skipped, text)
    return results


def main():
    binary = imaptest.binary()
    if binary is None:
        print(imaptest.skipped("test_imaptest"))
        return
    listed = expected()
    for backend in ("sqlite", "postgres"):
        results = run_groups(binary, backend)
        failed = sorted(g for g, (f, _, _) in results.items() if f)
        skipped = sorted(g for g, (_, s, _) in results.items() if s)
        for group in failed:
            if group not in listed:
                check(False, f"{backend}: imaptest group {group} failed:\n{results[group][2][-1500:]}")
        for group, (kind, why) in sorted(listed.items()):
            check(group in failed, f"{backend}: {group} still fails ({kind}: {why})")
        passed = len(results) - len(failed) - len(skipped)
        print(f"{backend}: {len(results)} groups: {passed} passed, {len(failed)} failed "
              f"({len([g for g in failed if listed.get(g, ('',))[0] == 'not-applicable'])} not applicable, "
              f"{len([g for g in failed if listed.get(g, ('',))[0] == 'failing'])} known failing), "
              f"{len(skipped)} skipped (no command ran: capability not advertised): {' '.join(skipped)}")
    check.finish("test_imaptest")


if __name__ == "__main__":
    main()
