"""The client tests' report: one line per check; the checked-in lists of what is known to fail, each with why."""


class Checks:
    """Prints each check; `finish` exits non-zero when any failed."""

    def __init__(self):
        self.failures = []
        self.context = ""  # put before each check's words: the backend the cases run on now, say

    def __call__(self, condition, what):
        what = self.context + what
        print(("ok   " if condition else "FAIL ") + what, flush=True)
        if not condition:
            self.failures.append(what)
        return condition

    def finish(self, name):
        if self.failures:
            print(f"{name}: {len(self.failures)} check(s) failed", flush=True)
            raise SystemExit(1)
        print(f"{name}: every check passed", flush=True)


def listed_with_why(path):
    """{name: (kind, why)} of a checked-in list of what a test expects to fail (imaptest's groups, JMAP-TestSuite's
    files): one `name<TAB>kind<TAB>why` line each, `#` lines comments."""
    listed = {}
    with open(path) as source:
        for line in source:
            if line.strip() and not line.startswith("#"):
                name, kind, why = line.rstrip("\n").split("\t")
                listed[name] = (kind, why)
    return listed
