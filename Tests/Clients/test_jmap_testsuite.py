"""fastmail's JMAP-TestSuite (github.com/fastmail/JMAP-TestSuite, Perl, unmodified) against `postern serve --profile
test` (issue 87). The suite is not part of this repository: it comes from $POSTERN_JMAP_TESTSUITE or the development
machine's shared tools (../shared/tools/jmap-testsuite), either a checkout or a bare git directory (its HEAD is
extracted once into ~/.cache/postern/jmap-testsuite/<commit>); without one the test skips with a message naming where
it looked. Its Perl modules come from Debian (installed through scripts/bootstrap when missing); the five Debian lacks
(JMAP::Tester, JMAP::Tester::Abort, JSON::Typist, Test::Deep::JType, Test::Deep::HashRec) are written here, in
Tests/Clients/jmap-testsuite/lib, with only the interface the suite calls, beside the server adapter
(Postern::JMAPTestSuiteAdapter: a fresh agent inbox for every account a test asks for).

`prove` runs the test files of the suite's core, Mailbox, Email and Thread directories (it has none for
EmailSubmission) and the totals are printed. A file that fails makes the test fail unless
Tests/Clients/jmap-testsuite-skips.tsv lists it with why; a listed file that passes fails the test too, so the list never
outlives its reason."""

import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # Tests/: postern_testkit
from postern_testkit import ROOT, Checks, postern
from postern_testkit.checks import listed_with_why

HERE = os.path.dirname(os.path.abspath(__file__))
OURS = os.path.join(HERE, "jmap-testsuite")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "tools", "jmap-testsuite"))
CACHE = os.path.expanduser("~/.cache/postern/jmap-testsuite")
DIRECTORIES = ("t/core", "t/Mailbox", "t/Email", "t/Thread")
# The suite's Perl dependencies that Debian packages (its cpanfile, less the five written here and Process::Status,
# which only its Cyrus adapter loads).
PACKAGES = ("libtest-routine-perl", "libtest-abortable-perl", "libdata-guid-perl", "libemail-mime-perl",
            "libemail-messageid-perl", "libmoosex-role-parameterized-perl", "libscope-guard-perl", "libsafe-isa-perl",
            "libpath-tiny-perl", "libimport-into-perl", "libmoo-perl", "libmoose-perl", "libtest-deep-perl",
            "libparams-util-perl", "libdatetime-perl", "libjson-perl", "libwww-perl", "libsub-exporter-perl",
            "libtry-tiny-perl", "libmodule-runtime-perl", "libsub-install-perl", "libmail-imapclient-perl")
check = Checks()


def suite():
    """The directory holding the suite's lib/ and t/, or None when there is none to run."""
    source = os.environ.get("POSTERN_JMAP_TESTSUITE") or SHARED
    if os.path.isdir(os.path.join(source, "t")) and os.path.isdir(os.path.join(source, "lib")):
        return source
    if not os.path.isfile(os.path.join(source, "HEAD")):
        return None
    commit = subprocess.run(["git", "--git-dir", source, "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    target = os.path.join(CACHE, commit)
    if not os.path.isdir(target):
        partial = tempfile.mkdtemp(prefix="partial-", dir=os.makedirs(CACHE, exist_ok=True) or CACHE)
        archive = subprocess.run(["git", "--git-dir", source, "archive", commit], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", partial], input=archive.stdout, check=True)
        os.rename(partial, target)
    return target


def expected():
    """{test file: (kind, why)} of the checked-in list."""
    return listed_with_why(os.path.join(HERE, "jmap-testsuite-skips.tsv"))


# prove's line for one file: "t/core/upload.t ...... ok", "... skipped: why", "... Failed 2/9 subtests",
# "... Dubious, test returned 255 (wstat 65280, 0xff00)" (the last two followed by more lines).
FILE_LINE = re.compile(r"^(t/\S+\.t) \.+ ?(.*)$")


def run(root, base):
    """Runs prove over DIRECTORIES against `base`; returns ({file: outcome}, prove's summary lines, its output)."""
    with tempfile.TemporaryDirectory() as work:
        adapter = os.path.join(work, "postern.json")
        with open(adapter, "w") as out:
            json.dump({"adapter": "=Postern::JMAPTestSuiteAdapter", "base_uri": base,
                       "account_command": [sys.executable, os.path.join(OURS, "new_agent.py"), base]}, out)
        os.makedirs(os.path.join(work, "account-locks"))
        env = {**os.environ, "JMAP_SERVER_ADAPTER_FILE": adapter,
               "PERL5LIB": os.pathsep.join([os.path.join(OURS, "lib"), os.path.join(root, "lib")])}
        proc = subprocess.run(["prove", "-j4", "-r", *DIRECTORIES], cwd=root, env=env, capture_output=True, text=True,
                              timeout=600)
    text = proc.stdout + proc.stderr
    outcomes, current = {}, None
    for line in proc.stdout.splitlines():
        found = FILE_LINE.match(line)
        if found:
            current = found.group(1)
            outcomes[current] = found.group(2).strip()
        elif current and not outcomes[current] and line.strip():
            outcomes[current] = line.strip()  # "Dubious, test returned 1 (wstat 256, 0x100)"
        else:
            current = None
    summary = [line for line in proc.stdout.splitlines() if line.startswith(("Files=", "Result:"))]
    return outcomes, summary, text


def counts(text):
    """(tests, failed) over the whole run from prove's summary: Tests= and each file's Failed N/M."""
    tests = re.search(r"Files=\d+, Tests=(\d+)", text)
    failed = sum(int(n) for n in re.findall(r"Failed (\d+)/\d+ subtests", text))
    return (int(tests.group(1)) if tests else 0), failed


def main():
    root = suite()
    if root is None:
        print(f"test_jmap_testsuite: skipped: no JMAP-TestSuite at $POSTERN_JMAP_TESTSUITE or {SHARED} (fastmail's "
              "suite is not part of this repository)")
        return
    subprocess.run([os.path.join(ROOT, "scripts", "bootstrap"), *PACKAGES], check=True, stdout=sys.stderr)
    listed = expected()
    with postern() as server:
        outcomes, summary, text = run(root, str(server))
    failed = sorted(f for f, outcome in outcomes.items() if outcome != "ok" and not outcome.startswith("skipped"))
    check(not any(f.startswith("t/") for f in listed if f not in outcomes), "every listed file ran")
    skipped = sorted(f for f, outcome in outcomes.items() if outcome.startswith("skipped"))
    for path in failed:
        if path not in listed:
            check(False, f"{path} failed: {outcomes[path]}")
    for path, (kind, why) in sorted(listed.items()):
        check(path in failed, f"{path} still fails ({kind}: {why})")
    check(len(outcomes) > 0, "prove ran the suite's files")
    tests, tests_failed = counts(text)
    print(f"JMAP-TestSuite: {len(outcomes)} files: {len(outcomes) - len(failed) - len(skipped)} passed, "
          f"{len(failed)} failed ({len([f for f in failed if f in listed])} listed with why), {len(skipped)} skipped "
          f"by the suite; {tests} tests, {tests_failed} failed")
    for line in summary:
        print("prove: " + line)
    for path in skipped:
        print(f"  skipped by the suite: {path}: {outcomes[path]}")
    if os.environ.get("JMTS_SHOW"):
        print(text)
    check.finish("test_jmap_testsuite")


if __name__ == "__main__":
    main()
