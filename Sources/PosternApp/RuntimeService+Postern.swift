import Audit
import ComputePool
import DKIMKeys
import DNS
import Fetch
import Logging
import MailStore
import OAuthResource
import OAuthServer
import Owners
import OutboundQueue
import SigningKeys
import SocketServer
import SignInProviders
import Storage
import Synchronization
import WebInbox
import OAuthGrants
import ServerMetrics

/// The services of a ``PosternRuntime``, in the order it starts them (and so the reverse of the order they stop in).
extension RuntimeService {
    /// The database: open for as long as any other service runs, closed last (a purge or reload already running
    /// finishes first: `close` waits on the writer queue).
    static func database(_ database: any SQLDatabase) -> RuntimeService {
        RuntimeService("database") { await Blocking.run { database.close() } }
    }

    /// The worker pool (hashing, signing), the fetcher's I/O threads and the DNS resolver's threads: their queued jobs
    /// finish and their threads are joined once nothing that uses them runs.
    static func threads(pool: WorkerPool, fetcher: Fetcher, dns: WorkerPool) -> RuntimeService {
        RuntimeService("worker, fetch and DNS threads") {
            await Blocking.run {
                pool.shutdown()
                fetcher.shutdown()
                dns.shutdown()
            }
        }
    }

    /// Rereads the key ring every `interval` (keys rotated by `postern keys rotate` or another instance, keys whose
    /// time to sign has come, keys past retention); stopped after the PostgreSQL listeners that ask for reloads too,
    /// and waits for the reloads they asked for.
    static func keyReload(
        _ store: any SigningKeyStore, every interval: Duration, clock: @escaping @Sendable () -> Int64, logger: Logger
    ) -> RuntimeService {
        let reloads = KeyReloadLoop(store: store, interval: interval, clock: clock, logger: logger)
        return RuntimeService("key reload", start: { reloads.start() }) {
            await reloads.stop()
            await Blocking.run { store.finishReloads() }
        }
    }

    /// PostgreSQL's `LISTEN` for what other instances did: key rotations (`postern_keys`: reload), mail changes
    /// (the mail store's own listener, ``MailStore/listenToOtherInstances()``: wake its change streams) and grant
    /// revocations (`postern_grants`: drop them from the cache). A listener that (re)connects hears nil: whatever was
    /// sent meanwhile is unknown, so everything is reloaded, woken or dropped.
    static func databaseListeners(
        _ database: any SQLDatabase, keyStore: any SigningKeyStore, mail: MailStore, grants: OAuthGrantCache,
        logger: Logger
    ) -> [RuntimeService] {
        [
            listening(DatabaseKeyStore.notificationChannel) {
                database.listen(on: DatabaseKeyStore.notificationChannel, logger: logger) { [weak keyStore] _ in
                    keyStore?.reloadSoon()
                }
            },
            listening(MailStore.notificationChannel) { mail.listenToOtherInstances() },
            listening(OAuthGrantCache.notificationChannel) {
                database.listen(on: OAuthGrantCache.notificationChannel, logger: logger) { grantIDs in
                    guard let grantIDs else { return grants.invalidateAll() }
                    for id in grantIDs { grants.invalidate(grantID: id) }
                }
            },
        ]
    }

    /// The service that runs the listener `start` makes on `channel`.
    private static func listening(
        _ channel: String, start: @escaping @Sendable () -> (any SQLNotificationListener)?
    ) -> RuntimeService {
        let listener = Mutex<(any SQLNotificationListener)?>(nil)
        return RuntimeService(
            "PostgreSQL LISTEN \(channel)",
            start: { listener.withLock { $0 = start() } },
            stop: {
                guard let running = listener.withLock({ $0.take() }) else { return }
                // Waits up to a connection attempt's timeout: off the cooperative pool.
                await Blocking.run { running.stop() }
            })
    }

    /// The periodic purges: consumed challenges, expired blobs, old mail changes, owner sessions and sign-in
    /// failures, sign-in providers' abandoned login transactions, OAuth codes and tokens, the web inbox's expired sessions, links and notices, audit events past
    /// `POSTERN_AUDIT_DAYS`, ended outbound submissions, and the DKIM keys of domains neither `servedDomains` nor a
    /// claim holds (``DKIMKeyPurge``: retired at once, deleted 30 days on).
    static func purges(
        database: any SQLDatabase, ledger: ChallengeLedger, mailStore: MailStore, changesKept: Int, auditDays: Int,
        servedDomains: Set<String>, clock: @escaping @Sendable () -> Int64
    ) -> RuntimeService {
        let schedules = Mutex<[PurgeSchedule]>([])
        return RuntimeService(
            "purges",
            start: {
                let started = [
                    ledger.startPurging(every: .seconds(60), now: clock),
                    mailStore.startExpiringBlobs(every: .seconds(60), now: clock),
                    mailStore.startTrimmingChanges(every: .seconds(60), keep: changesKept),
                    PurgeSchedule.start(
                        every: .seconds(60), on: database, purging: "owner sessions and sign-in failures"
                    ) { try OwnerPurge.run($0, now: clock()) },
                    PurgeSchedule.start(
                        every: .seconds(60), on: database, purging: "abandoned sign-in provider logins"
                    ) { try SignInTransactionStore.purge($0, now: clock()) },
                    PurgeSchedule.start(
                        every: .seconds(60), on: database, purging: "OAuth codes, tokens and unused clients"
                    ) { try OAuthPurge.run($0, now: clock()) },
                    PurgeSchedule.start(
                        every: .seconds(60), on: database, purging: "web inbox sessions, links and notices"
                    ) { try WebInboxPurge.run($0, now: clock()) },
                    PurgeSchedule.start(
                        every: .seconds(600), on: database, purging: "audit events past POSTERN_AUDIT_DAYS"
                    ) { try SQLAuditLog.purgeExpired($0, now: clock(), days: auditDays) },
                    PurgeSchedule.start(
                        every: .seconds(600), on: database, purging: "ended outbound submissions and suppressions"
                    ) { try OutboundQueue.purge($0, now: clock()) },
                    PurgeSchedule.start(
                        every: .seconds(600), on: database, purging: "DKIM keys of domains no longer served or claimed"
                    ) { try DKIMKeyPurge.run($0, now: clock(), keep: servedDomains) },
                ]
                schedules.withLock { $0 = started }
            },
            stop: {
                let running = schedules.withLock { schedules in
                    defer { schedules = [] }
                    return schedules
                }
                for schedule in running { schedule.cancel() }
            })
    }

    /// Retention (issue 71 item 5): every ``MailRetentionConfiguration/interval`` prunes, oldest first, what
    /// `retention` does not keep, each address counted on its own (issue 81 item 8: a sandbox and the catch-all are
    /// one address each; what a sandbox kept beside a pruned capture goes with it, migration 0067), and counts each
    /// message (`postern_mail_pruned_total{reason}`). A failed pass is logged and the next one tries again.
    static func retention(
        _ retention: MailRetention, mailStore: MailStore, metrics: PosternMetrics,
        clock: @escaping @Sendable () -> Int64, logger: Logger
    ) -> RuntimeService {
        .repeating("retention", every: MailRetentionConfiguration.interval, logger: logger) {
            let pruned = try await mailStore.prune(retention, now: clock())
            metrics.mailPruned(pruned)
        }
    }

    /// A service that runs `pass` every `interval` from its start until it is stopped (which cancels the wait and
    /// joins the pass under way); a failed pass is logged as `"<name> pass failed"` and the next one tries again.
    static func repeating(
        _ name: String, every interval: Duration, logger: Logger, pass: @escaping @Sendable () async throws -> Void
    ) -> RuntimeService {
        let loop = Mutex<Task<Void, Never>?>(nil)
        return RuntimeService(
            name,
            start: {
                let task = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        guard !Task.isCancelled else { break }
                        do {
                            try await pass()
                        } catch {
                            logger.warning("\(name) pass failed", metadata: ["error": "\(type(of: error))"])
                        }
                    }
                }
                loop.withLock { $0 = task }
            },
            stop: {
                let task = loop.withLock { task in
                    defer { task = nil }
                    return task
                }
                task?.cancel()
                await task?.value
            })
    }

    /// The event loops the listeners share: started by the first listener, stopped and joined once every listener
    /// has stopped.
    static func eventLoops(_ group: EventLoopGroup) -> RuntimeService {
        RuntimeService("event loops", start: { group.startOnce() }) { await group.shutdownJoining() }
    }

    /// `server` listening on the shared loops: it serves `socket` (bound by `build`); stopped, it stops accepting,
    /// finishes what is in flight and closes the connections.
    static func listening(
        _ name: String, _ server: some SocketListeningServer, on socket: ListeningSocket, group: EventLoopGroup
    ) -> RuntimeService {
        listening(name, on: socket, group: group) { _ = try server.start(on: $0) } stop: { await server.shutdown() }
    }

    /// A listener on the shared loops: `start` serves `socket` (bound by `build`); `stop` stops accepting, finishes
    /// what is in flight and closes the connections.
    static func listening(
        _ name: String, on socket: ListeningSocket, group: EventLoopGroup,
        start: @escaping @Sendable (ListeningSocket) throws -> Void, stop: @escaping @Sendable () async -> Void
    ) -> RuntimeService {
        RuntimeService(
            name,
            start: {
                group.startOnce()
                try start(socket)
            }, stop: stop)
    }

    /// Started last and stopped first: `/readyz` answers 503 `draining` for `seconds` (`POSTERN_DRAIN_SECONDS`) so
    /// that a balancer takes the instance out before any connection is closed under it.
    static func readiness(_ flag: DrainFlag, seconds: Int, logger: Logger) -> RuntimeService {
        RuntimeService("readiness") {
            guard seconds > 0 else { return }
            flag.set()
            logger.notice("draining: /readyz fails for \(seconds) s, then shutting down")
            try? await Task.sleep(for: .seconds(seconds))
        }
    }
}
