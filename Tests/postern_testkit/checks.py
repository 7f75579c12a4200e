"""The client tests' report: one line per check."""


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
