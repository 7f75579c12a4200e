# The README's two commands are `make run` and `make test`; each installs what it needs first.
SWIFT ?= swift
CONFIG ?= config/postern.env

.PHONY: bootstrap build release run cluster cluster-stop check test test-deploy client-tests outbound-tests cluster-tests failover-tests patroni-tests rolling-upgrade bench-cluster schemathesis sanitize bench instructions fuzz soak clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

release: bootstrap
	$(SWIFT) build -c release --product postern

## Serve on 127.0.0.1:8080 with the shipped configuration and ./data, IMAP on 127.0.0.1:1143 (IMAPS on 1993), POP3
## on 127.0.0.1:1110 (POP3S on 1995) and submission on 127.0.0.1:1587 (implicit TLS on 1465).
run: release
	POSTERN_IMAP=$${POSTERN_IMAP:-on} POSTERN_IMAPS_PORT=$${POSTERN_IMAPS_PORT:-1993} POSTERN_POP3=$${POSTERN_POP3:-on} \
		POSTERN_POP3S_PORT=$${POSTERN_POP3S_PORT:-1995} POSTERN_SUBMISSION=$${POSTERN_SUBMISSION:-on} \
		POSTERN_SUBMISSIONS_PORT=$${POSTERN_SUBMISSIONS_PORT:-1465} .build/release/postern serve --config $(CONFIG)

## Several instances on one PostgreSQL database behind HAProxy, on loopback (scripts/cluster; installs postgresql and
## haproxy when missing): CLUSTER_INSTANCES (2) `postern serve` in $(CLUSTER_DIR), one address printed; settings
## from the environment are passed to every instance (e.g. POSTERN_RATE_LIMITS=off make cluster). HTTP, SMTP and the
## sandbox each have one port on HAProxy ($(CLUSTER_DIR)/cluster.env names them). The directory is remembered in
## .build/cluster-dir for `make cluster-stop`.
CLUSTER_DIR ?= .build/cluster
CLUSTER_INSTANCES ?= 2
cluster: release
	@scripts/cluster start $(CLUSTER_DIR) $(CLUSTER_INSTANCES)
	@echo "$(abspath $(CLUSTER_DIR))" > .build/cluster-dir
	@echo "stop it with: make cluster-stop   (it stops $(CLUSTER_DIR))"

## Stop a cluster of `make cluster` and remove its directory: CLUSTER_DIR when given, else the last one started.
cluster-stop:
	@dir="$(if $(filter command line environment,$(origin CLUSTER_DIR)),$(CLUSTER_DIR),$$(cat .build/cluster-dir 2>/dev/null || echo $(CLUSTER_DIR)))"; \
	scripts/cluster stop "$$dir" && echo "stopped the cluster in $$dir" && \
	if [ "$$(cat .build/cluster-dir 2>/dev/null)" = "$$(cd "$$(dirname "$$dir")" 2>/dev/null && pwd)/$$(basename "$$dir")" ]; then rm -f .build/cluster-dir; fi

## The tests come in three tiers (scripts/test-stages, which prints the wall time of each stage at the end, also after
## a failure, and keeps logs in .build/test-logs):
##
## `make check`, for every edit (under 3 minutes warm): the import rules, the incremental build, the known-answer
## suites (pure code: crypto, JWT, proof of work, MIME, the HTTP parser) and the server suites on SQLite alone
## (POSTERN_TEST_BACKENDS=sqlite), without the browser walks. Nothing to install: no Python stage, no PostgreSQL
## server, no browser.
check: bootstrap
	SWIFT='$(SWIFT)' scripts/test-stages check

## `make test`, before a merge (the README's, CI's first): every test of the code, unit, known-answer and end to end
## against real servers on port 0. The build, with what only the tests need beside it (scripts/bootstrap --test:
## Chromium, PostgreSQL, swaks... from Debian, Selenium and the clients from PyPI); then every server suite in a test
## process of its own or batched with short ones, TEST_LANES (4) at once, each serial inside (their in-process servers'
## deferred handlers run on Swift's cooperative pool, two threads here: CPU-bound tests beside them would starve those
## handlers); every test that runs SQL on SQLite and on PostgreSQL (`StorageBackend.allCases`; one server from
## scripts/pg-temp, a database per test). Beside the suites: the known-answer suites in one process, the client tests
## (scripts/client-tests, CLIENT_LANES (3) at once: the hosted services' SDKs unmodified, mail clients, imaptest's
## scripted groups, the documented fixture) and schemathesis on every documented operation (scripts/schemathesis).
test:
	@scripts/bootstrap
	SWIFT='$(SWIFT)' scripts/test-stages test

## `make test-deploy`, the deployment topologies (CI runs it after `make test`), at once, each logged to
## .build/test-logs/deploy/<stage>.log: outbound delivery end to end (scripts/outbound-tests: direct mode into a real
## Postfix found through a loopback DNS server, relay mode through an aiosmtpd smarthost that requires AUTH; the only
## stage on fixed addresses); the cluster (Tests/Cluster/cluster_tests.py: two instances on one PostgreSQL behind
## HAProxy, the surfaces' flows and races across instances, revocation, rate limits, key rotation, drained restarts,
## kill -9, a PostgreSQL restart mid-load, imaptest's stress mode); failover (Tests/Cluster/failover_tests.py: a
## primary and a synchronous standby, kill -9 of the primary under load with zero acknowledged writes lost, and the
## asynchronous control that must show loss); Patroni (Tests/Cluster/patroni_tests.py: three nodes, a switchover, kill
## -9 of the leader's PostgreSQL and of its Patroni, a rolling restart under load, nothing acknowledged lost); then,
## alone, the rolling upgrade from the previous release (scripts/rolling-upgrade, below).
test-deploy:
	@scripts/bootstrap
	SWIFT='$(SWIFT)' scripts/test-stages deploy

## schemathesis --checks all on every operation of /openapi.json against a real server, bounded in time
## (scripts/schemathesis: SCHEMATHESIS_EXAMPLES, SCHEMATHESIS_SECONDS).
schemathesis: build
	scripts/schemathesis

## Only the cluster tests, against the current debug build (CLUSTER_TESTS_ONLY=name,... for some).
cluster-tests: build
	POSTERN_BIN=.build/debug/postern Tests/Cluster/cluster_tests.py

## Only the failover suite (docs/postgres.md, failover), against the current debug build.
failover-tests: build
	POSTERN_BIN=.build/debug/postern Tests/Cluster/failover_tests.py

## Only the Patroni stage (docs/postgres.md, Patroni), against the current debug build.
patroni-tests: build
	POSTERN_BIN=.build/debug/postern Tests/Cluster/patroni_tests.py

## A rolling upgrade under load (scripts/rolling-upgrade; decision 32), the last stage of `make test-deploy`: the
## release before the last change to migrations/ (ROLLING_UPGRADE_FROM=<commit> for another) and this checkout, both
## built in debug, two instances of the old on one PostgreSQL database replaced by the new one at a time; zero failed
## requests and zero lost writes, or it fails.
rolling-upgrade: bootstrap
	@scripts/bootstrap --test
	SWIFT='$(SWIFT)' scripts/rolling-upgrade

## Only the client tests, against the current debug build.
client-tests:
	scripts/client-tests

## Outbound delivery end to end (scripts/outbound-tests; root): the harness (loopback DNS, a private Postfix on
## 127.0.0.2:25, an aiosmtpd smarthost) proved with swaks and dkimpy, then JMAP submissions delivered by the debug
## build in direct mode to that Postfix and in relay mode to the smarthost (Tests/Outbound/).
outbound-tests: build
	scripts/outbound-tests

## Every test under ThreadSanitizer, then under AddressSanitizer with LeakSanitizer (scripts/sanitize; one of
## them with SANITIZER=thread or SANITIZER=address). Fails on any test failure or sanitizer report, also one
## from a child process. Not part of `make test`: on the shared 2-core machine each sanitizer has a build
## of its own (.build-tsan, .build-asan: 6.5 and 9 minutes from scratch), then the suite takes about 2
## minutes under TSan and 1.5 under ASan (4 minutes for both with warm builds; near 20 from nothing).
sanitize:
	@scripts/bootstrap --test
	SWIFT=$(SWIFT) scripts/sanitize

## Throughput and latency with wrk, beside the Hummingbird peer and nginx when available.
bench: release
	scripts/bench

## The cluster through HAProxy (scripts/bench-cluster): challenge, capability, GET /api/accounts/{id}, its messages,
## Argon2 login, a replay flood of a used challenge and Mail.td sign-ups, with one and two instances on PostgreSQL
## beside one on SQLite, then account reads and sign-ups on Patroni's three nodes against scripts/pg-ha's pair, in one
## run; ratios and CPU per request of the instances, PostgreSQL and HAProxy.
bench-cluster: release
	scripts/bench-cluster

## User-space instructions per request on /healthz, /api/v1/challenge, /api/accounts/{id} and /api/v1/capability
## (callgrind; repeatable on a busy machine), beside nginx's fixed body.
instructions: release
	scripts/instructions

## libFuzzer runs (scripts/fuzz) of the HTTP parser (and its repeated-head cache against a fresh parse), the JWT verifier and JSON parser, the Argon2 hash
## parser, the fetch URL/address policy, the MIME parser, JMAP's method calls, the SMTP client's replies and MTA-STS
## parsers, the CBOR decoder, the WebSocket frame parser and session, the IMAP command framer, parser and session and
## the extraction of codes and links, each on its corpus in Tests/Fuzz/corpus/<target>: FUZZ_SECONDS each (default
## 60); FUZZ_TARGETS="jwt url" runs a subset (http1 http1head jwt argon2 url mime jmap smtpreply cbor websocket imap
## extract).
fuzz: bootstrap
	scripts/fuzz

## Fault, timing, slow-client and soak checks too long for `make test`: every executable in Tests/Soak/
## (clock-jump, full-disk, kill9-signup-storm, login-timing, mixed-soak, slow-clients), see scripts/soak.
soak:
	@scripts/bootstrap --test slowhttptest faketime libfaketime sqlite3
	scripts/soak

clean:
	rm -rf .build .build-tsan .build-asan
