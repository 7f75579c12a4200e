#!/usr/bin/env python3
"""A rolling upgrade under load (issue 73; `make rolling-upgrade`, the last stage of
`make test-deploy`): two instances of the previous
release (ROLLING_UPGRADE_OLD_BIN) behind HAProxy on one PostgreSQL database (scripts/cluster), then each replaced by
this release (POSTERN_BIN) one at a time, by SIGTERM and its drain: instance 2 first, whose start applies this
release's migrations while instance 1, still the previous release, serves on the migrated database; then instance 1.
The load is patroni_tests' (Mail.td sign-ups, SMTP deliveries, owner sign-ups, OAuth refreshes through HAProxy).
Passes with zero failed requests (not a 503 either) and every acknowledged write found afterwards. Prints the
migrations the new release applied and the figures. Decision 32 is the rule that makes it possible.

    ROLLING_UPGRADE_OLD_BIN=... POSTERN_BIN=... Tests/Cluster/rolling_upgrade.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patroni_tests as pt  # noqa: E402 - its sorted load

fo, ct = pt.fo, pt.ct
expect = ct.expect
SIDE_BY_SIDE_SECONDS = 10


class OldCluster(ct.Cluster):
    """scripts/cluster with the previous release's binary, on scripts/pg-temp's PostgreSQL."""

    start_timeout = 300

    def start(self):
        ct.CLUSTER_SETTINGS.update({"POSTERN_OWNER_SIGNUP": "open", "POSTERN_OWNER_SIGNUPS_PER_HOUR": "0",
                                    "POSTERN_DRAIN_SECONDS": str(pt.DRAIN_SECONDS)})
        new = os.environ["POSTERN_BIN"]
        os.environ["POSTERN_BIN"] = os.environ["ROLLING_UPGRADE_OLD_BIN"]
        try:
            super().start()
        finally:
            os.environ["POSTERN_BIN"] = new

    def upgrade(self, i):
        """As docs/postgres.md's upgrade procedure says: the balancer first sends the instance no new session
        (scripts/cluster's drained restart: HAProxy's `drain` state until it holds none), then SIGTERM, then the new
        release, back in rotation once ready. Releases before 9ac2b95 answered a new SMTP session 421 while draining, so
        with SIGTERM alone an upgrade from one of them refuses the sessions HAProxy sends in the half second before its
        health check sees the drain (7 in the first run of this stop)."""
        return self.script("restart-instance", self.dir, str(i), "--binary", os.environ["POSTERN_BIN"], timeout=240)

    def stop(self):
        subprocess.run([ct.CLUSTER, "stop", self.dir], capture_output=True, timeout=120)


def migrations(cluster):
    return [row[0] for row in cluster.psql("SELECT name FROM schema_migrations ORDER BY version")]


def run(cluster):
    before = migrations(cluster)
    recipient = fo.new_account(cluster.url)
    load = pt.Load(cluster, recipient, fo.oauth_grant(cluster))
    moments = []
    load.start()
    moments.append(["both on the previous release", time.monotonic(), ""])
    try:
        time.sleep(pt.SETTLE_SECONDS)
        moments.append(["instance 2 upgraded (migrates)", time.monotonic(), ""])
        cluster.upgrade(2)
        after = migrations(cluster)
        moments.append([f"side by side for {SIDE_BY_SIDE_SECONDS} s", time.monotonic(), ""])
        time.sleep(SIDE_BY_SIDE_SECONDS)
        moments.append(["instance 1 upgraded", time.monotonic(), ""])
        cluster.upgrade(1)
        time.sleep(pt.SETTLE_SECONDS)
        moments.append(["end", time.monotonic(), ""])
    finally:
        load.stop()
    lines, failures = pt.summary(load, moments)
    print("  " + "\n  ".join(lines), flush=True)
    unavailable = sum(1 for a in load.answers if a[2] == "unavailable")
    acknowledged, found, lost = load.check()
    applied = [name for name in after if name not in before]
    expect(applied, f"the new release applied no migration (the old had {before[-1:]})")
    expect(unavailable == 0 and not failures, f"{unavailable} 503s and {len(failures)} failures: {failures[:10]}")
    expect(lost == 0, f"{lost} acknowledged writes are missing ({acknowledged} acknowledged)")
    return (f"{len(load.answers)} requests, 0 failed, 0 answered 503; acknowledged {acknowledged} "
            f"({len(load.accounts)} sign-ups, {len(load.messages)} messages, {len(load.owners)} owner sign-ups, "
            f"{len(load.access_tokens)} refreshes), found {found}, lost {lost}; the new release applied "
            f"{', '.join(applied)} while the old served")


def main():
    for key in ("ROLLING_UPGRADE_OLD_BIN", "POSTERN_BIN"):
        if not os.access(os.environ.get(key, ""), os.X_OK):
            print(f"rolling-upgrade: {key} must name an executable postern", file=sys.stderr)
            return 2
    workdir = tempfile.mkdtemp(prefix="postern-upgrade-")
    os.chmod(workdir, 0o711)
    cluster = OldCluster(os.path.join(workdir, "c"))
    started = time.monotonic()
    ok = False
    try:
        cluster.start()
        print(f"PASS  two instances of the previous release started  ({time.monotonic() - started:.1f} s)", flush=True)
        started = time.monotonic()
        try:
            detail = run(cluster)
            ok = True
        except Exception as error:  # noqa: BLE001 - the run's failure, whatever it is
            detail = str(error) if isinstance(error, ct.Failure) else traceback.format_exc(limit=4)
        print(f"{'PASS' if ok else 'FAIL'}  rolling upgrade under load  ({time.monotonic() - started:.1f} s)  {detail}",
              flush=True)
    except ct.Failure as error:
        print(f"FAIL  start  {error}", flush=True)
    finally:
        cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
