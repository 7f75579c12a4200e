import LeasedQueue
import Logging
import MailDelivery
import SMTPOutcomes
import ServiceLifecycle
import Storage
import Synchronization

/// Runs the outbound queue: each instance runs one. It claims due batches (``OutboundQueue/claim(now:limit:)``), hands
/// them to the ``OutboundTransport`` with at most ``OutboundQueueConfiguration/perDestination`` connections at once per
/// destination domain, each carrying up to ``OutboundQueueConfiguration/messagesPerConnection`` of the domain's waiting
/// batches, with their leases renewed while they are carried, completes each batch (the completion reports to the
/// sender itself, bounces and delay notices, in its transaction), and gives the recipients that ended to ``onEnded``.
/// Before each attempt it asks ``senderCheck`` again whether the sender may still send outside: a sender whose standing
/// changed since the submission (an owner's approval withdrawn, an inbox unlinked, a domain lost) has the batch held,
/// not sent, until its mail is released.
///
/// Its loop is the ``QueueRunner`` every leased queue runs: it wakes when a record on this instance queues mail (the
/// queue's ``Wakeup``), when an attempt ends, when the next retry or lease falls due, and at the latest every
/// ``Settings/idleInterval`` (mail another instance queued).
///
/// A service of the runtime's group: ``run()`` delivers until the group's graceful shutdown (or cancellation), then
/// returns once the attempts in flight have ended and been recorded.
public final class OutboundDispatcher: Service, Sendable {
    /// The settings of a dispatcher; every default stated.
    public struct Settings: Sendable {
        /// Batches in flight at once on this instance, every domain's together. Default 64.
        public var maxInFlight = 64
        /// The longest sleep between looks at the queue. Default 5 s.
        public var idleInterval: Duration = .seconds(5)

        public init() {}
    }

    /// Why mail from `sender` may no longer leave this server, nil when it may: the sender rule
    /// (`POSTERN_OUTBOUND_SENDERS`), asked again before each attempt.
    /// - Throws: storage errors (the batch is deferred, never sent on an error).
    public typealias SenderCheck = @Sendable (_ sender: String) async throws -> HeldReason?

    /// What one attempt at a batch came to, for the metrics.
    public struct Attempt: Sendable {
        /// How an attempt (one batch: one message to one destination domain) ended, as
        /// `postern_outbound_delivery_attempts_total{result}` counts it.
        public enum Result: String, Sendable, CaseIterable {
            /// Every recipient of the batch delivered.
            case delivered
            /// Every recipient deferred (a 4xx, no connection, a timeout): due again after the next retry delay.
            case deferred
            /// Every recipient failed for good (a 5xx, the queue lifetime's end).
            case failed
            /// Some delivered, deferred or failed, not all alike.
            case partial
            /// Nothing recorded: the lease was lost (it ran out, or the operator deleted the message), the completion
            /// could not be written, or the transport gave no outcome. The batch is tried again, once its lease runs
            /// out when one is held.
            case unrecorded
        }

        public var batch: OutboundBatch
        /// What the completion recorded; nil when it could not be written.
        public var completion: OutboundCompletion?

        /// - Parameters: see the properties.
        public init(batch: OutboundBatch, completion: OutboundCompletion?) {
            self.batch = batch
            self.completion = completion
        }

        /// The attempt's result, from what was recorded.
        public var result: Result {
            guard let completion, !completion.leaseLost else { return .unrecorded }
            let delivered = completion.ended.count { if case .delivered = $0.status { true } else { false } }
            let failed = completion.ended.count - delivered
            let deferred = completion.deferred.count
            switch (delivered > 0, deferred > 0, failed > 0) {
            case (false, false, false): return .unrecorded
            case (true, false, false): return .delivered
            case (false, true, false): return .deferred
            case (false, false, true): return .failed
            default: return .partial
            }
        }
    }

    let queue: OutboundQueue
    let transport: any OutboundTransport
    let settings: Settings
    /// Unix seconds now.
    let clock: @Sendable () -> Int64
    let logger: Logger
    let onEnded: @Sendable (OutboundClaim, [OutboundCompletion.Ended]) async -> Void
    let onAttempt: @Sendable (Attempt) -> Void
    /// Why mail from a sender may no longer leave (nil: it may), asked before each attempt.
    let senderCheck: SenderCheck?
    private let lanes: DestinationLanes
    private let inFlight = Atomic<Int>(0)
    /// The loop: a round of claims, then a wait on the queue's wakeup.
    private let runner: QueueRunner

    /// - Parameters:
    ///   - queue: the shared queue (its configuration's `perDestination` caps each domain's batches at once).
    ///   - transport: what carries a batch (direct to the MX, or a relay).
    ///   - clock: Unix seconds; injected so tests can move time past the retry delays.
    ///   - onEnded: given each claim's recipients that ended (delivered or failed for good) once they are recorded
    ///     (tests watch with it; reports to the sender are the queue's own).
    ///   - onAttempt: given every attempt once its completion was tried, recorded or not (metrics).
    ///   - senderCheck: the sender rule, asked again before each attempt; nil asks nothing (tests of the rest).
    public init(
        queue: OutboundQueue, transport: any OutboundTransport, settings: Settings = Settings(),
        clock: @escaping @Sendable () -> Int64, logger: Logger,
        onEnded: @escaping @Sendable (OutboundClaim, [OutboundCompletion.Ended]) async -> Void = { _, _ in },
        onAttempt: @escaping @Sendable (Attempt) -> Void = { _ in }, senderCheck: SenderCheck? = nil
    ) {
        self.senderCheck = senderCheck
        self.queue = queue
        self.transport = transport
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.onEnded = onEnded
        self.onAttempt = onAttempt
        self.runner = QueueRunner(
            wakeup: queue.wakeup, idleInterval: settings.idleInterval, logger: logger,
            failure: "outbound queue unavailable")
        self.lanes = DestinationLanes(
            perDestination: queue.configuration.perDestination,
            perConnection: queue.configuration.messagesPerConnection)
    }

    /// Runs the queue until the service group's graceful shutdown or the calling task's cancellation, then returns
    /// once the attempts in flight have ended.
    public func run() async {
        await cancelWhenGracefulShutdown { await self.deliver() }
    }

    /// Runs the queue until the calling task is cancelled.
    private func deliver() async {
        if queue.isSingleInstance {
            // SQLite: this process is the one instance, so a lease found now is a dead process's.
            do {
                let released = try await queue.releaseAllLeases()
                if released > 0 {
                    logger.notice("outbound leases released at start", metadata: ["recipients": "\(released)"])
                }
            } catch {
                logger.error("releasing outbound leases at start failed", metadata: ["error": "\(error)"])
            }
        }
        // A discarding group (SE-0381): an attempt that ended is gone at once, where a plain task group kept every
        // finished child until awaited, for as long as the server ran.
        await withDiscardingTaskGroup { group in
            await runner.run {
                let room = settings.maxInFlight - inFlight.load(ordering: .relaxed)
                guard room > 0 else { return QueueRunner.Round(worked: false) }
                let now = clock()
                let claims = try await queue.claim(now: now, limit: room)
                inFlight.add(claims.count, ordering: .relaxed)
                // Every claim joins its domain's lane first, so that one connection takes all it can.
                for first in lanes.add(claims) {
                    group.addTask {
                        var next: [OutboundClaim]? = first
                        while let claims = next, let domain = claims.first?.batch.domain {
                            await self.attempt(claims)
                            self.inFlight.subtract(claims.count, ordering: .relaxed)
                            self.queue.wakeup.signal()
                            next = self.lanes.next(domain)
                        }
                    }
                }
                if !claims.isEmpty { return .worked }
                guard let due = try await queue.nextDue(), due > now else { return QueueRunner.Round(worked: false) }
                return QueueRunner.Round(worked: false, nextDueIn: .seconds(due - now))
            }
            // Leaving the group's scope waits for the attempts in flight.
        }
    }

    /// One connection's batches (one destination domain): each lease renewed first (a batch that waited for its
    /// connection longer than its lease may have gone to another instance, and is left to it), then the transport with
    /// the leases renewed meanwhile. A batch is completed as soon as the transport says its outcome is final, while
    /// the connection goes on (a message held up after it, or a crash, cannot leave its delivery unrecorded to be sent
    /// again); the others when the connection ends.
    func attempt(_ claims: [OutboundClaim]) async {
        // One renewal for the connection's batches: a database error leaves them all to their leases' end.
        let renewed = (try? await queue.renew(claims, now: clock())) ?? []
        for claim in claims where !renewed.contains(claim) {
            logger.notice(
                "an outbound batch lost its lease while it waited for a connection: left to its new holder",
                metadata: ["message": "\(claim.batch.messageID)", "domain": "\(claim.batch.domain)"])
        }
        // The sender rule asked again: a batch whose sender may no longer send outside is held, not sent.
        let held = await withSendersAllowed(renewed)
        guard !held.isEmpty else { return }
        let (settled, settle) = AsyncStream.makeStream(of: (Int, [OutboundOutcome]).self)
        let (outcomes, completed) = await withTaskGroup(of: Void.self) { renewal in
            renewal.addTask { await self.keepLeased(held) }
            async let early: Set<Int> = {
                var completed: Set<Int> = []
                for await (index, outcomes) in settled where held.indices.contains(index) {
                    if completed.insert(index).inserted { await self.complete(held[index], outcomes) }
                }
                return completed
            }()
            let outcomes = await transport.deliver(held.map(\.batch)) { settle.yield(($0, $1)) }
            settle.finish()
            let completed = await early
            // The renewals end once every completion is written.
            renewal.cancelAll()
            return (outcomes, completed)
        }
        for (index, claim) in held.enumerated() where !completed.contains(index) {
            // A batch the transport gave no outcomes for is released for another attempt by its completion.
            await complete(claim, index < outcomes.count ? outcomes[index] : [])
        }
    }

    /// The claims whose sender may still send outside (``senderCheck``, asked once per sender); the others are completed
    /// at once, their recipients held with the reason (or deferred when the rule could not be read: nothing is sent on
    /// a doubt).
    func withSendersAllowed(_ claims: [OutboundClaim]) async -> [OutboundClaim] {
        guard let senderCheck else { return claims }
        // Per sender: nil when it may send, else what its recipients become.
        var verdicts: [String: RecipientStatus?] = [:]
        var allowed: [OutboundClaim] = []
        for claim in claims {
            let sender = claim.batch.sender.lowercased()
            if verdicts.index(forKey: sender) == nil {
                do {
                    verdicts[sender] = .some(try await senderCheck(claim.batch.sender).map { .held($0) })
                } catch {
                    logger.error(
                        "the sender rule could not be read: the batch waits",
                        metadata: ["message": "\(claim.batch.messageID)", "error": "\(error)"])
                    verdicts[sender] = .some(
                        .deferred(
                            .local(
                                SMTPReply(451, (4, 3, 0), "the sender's standing could not be checked"),
                                about: .sender)))
                }
            }
            guard case .some(.some(let stop)) = verdicts[sender] else {
                allowed.append(claim)
                continue
            }
            if case .held(let reason) = stop {
                logger.notice(
                    "the sender may no longer send outside: its batch is held",
                    metadata: ["message": "\(claim.batch.messageID)", "reason": "\(reason.code)"])
            }
            await complete(claim, claim.batch.recipients.map { OutboundOutcome(recipient: $0, status: stop) })
        }
        return allowed
    }

    /// Renews the leases of `claims` every third of a lease until cancelled (the attempt ended) or every one is lost.
    func keepLeased(_ claims: [OutboundClaim]) async {
        let interval = Duration.milliseconds(max(1, queue.leaseSeconds * 1000 / 3))
        var held = claims
        while !Task.isCancelled, !held.isEmpty {
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            do {
                held = try await queue.renew(held, now: clock())
            } catch {
                // Kept: the next renewal may reach the database.
                logger.error("renewing outbound leases failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// How many times a completion that kept conflicting with other transactions is tried in all.
    static let completionAttempts = 8

    /// `record`, tried again while it throws `.busy`: on PostgreSQL a SERIALIZABLE transaction that kept conflicting
    /// with others (every completion of one account moves its `EmailSubmission` state) was rolled back whole, so
    /// trying it again is safe, while giving up would leave a delivered batch unrecorded, to be sent again once its
    /// lease runs out. The pauses (a twentieth to a seventh of a second, growing; under 4 s in all) stay well inside the lease, which the
    /// attempt's renewals keep meanwhile.
    private func recorded(_ record: () async throws -> OutboundCompletion) async throws -> OutboundCompletion {
        var attempt = 1
        while true {
            do {
                return try await record()
            } catch let error as StorageError where error.code == .busy && attempt < Self.completionAttempts {
                attempt += 1
                try? await Task.sleep(for: .milliseconds(Int.random(in: 50...150) * min(attempt, 4)))
            }
        }
    }

    /// One batch's completion, then ``onEnded``.
    func complete(_ claim: OutboundClaim, _ outcomes: [OutboundOutcome]) async {
        let batch = claim.batch
        do {
            let completion = try await recorded { try await queue.complete(claim, outcomes, now: clock()) }
            onAttempt(Attempt(batch: batch, completion: completion))
            if completion.leaseLost {
                logger.notice(
                    "an outbound attempt outlived its lease: nothing recorded",
                    metadata: ["message": "\(batch.messageID)", "domain": "\(batch.domain)"])
                return
            }
            if !completion.ended.isEmpty { await onEnded(claim, completion.ended) }
        } catch {
            onAttempt(Attempt(batch: batch, completion: nil))
            // Its lease runs out and the batch is tried again.
            logger.error(
                "recording an outbound attempt failed",
                metadata: ["error": "\(error)", "message": "\(batch.messageID)", "domain": "\(batch.domain)"])
        }
    }
}

/// Claimed batches waiting for a connection, per destination domain: at most `perDestination` connections at once to a
/// domain, each taking up to `perConnection` of its waiting batches, oldest first, when it starts or ends.
final class DestinationLanes: Sendable {
    private struct Domain {
        var running = 0
        var waiting: [OutboundClaim] = []
    }

    private let perDestination: Int
    private let perConnection: Int
    private let domains = Mutex<[String: Domain]>([:])

    init(perDestination: Int, perConnection: Int) {
        self.perDestination = perDestination
        self.perConnection = perConnection
    }

    /// Queues `claims` in their domains' lanes; returns the connections to open now (each a group of one domain's
    /// batches), as far as their domains have free connections.
    func add(_ claims: [OutboundClaim]) -> [[OutboundClaim]] {
        domains.withLock { domains in
            var touched: [String] = []
            for claim in claims {
                let domain = claim.batch.domain
                if !touched.contains(domain) { touched.append(domain) }
                domains[domain, default: Domain()].waiting.append(claim)
            }
            var start: [[OutboundClaim]] = []
            for domain in touched {
                guard var state = domains[domain] else { continue }
                while state.running < perDestination, !state.waiting.isEmpty {
                    state.running += 1
                    start.append(take(&state))
                }
                domains[domain] = state
            }
            return start
        }
    }

    /// A connection to `domain` ended: the next group it carries, or nil when none waits (its place is freed).
    func next(_ domain: String) -> [OutboundClaim]? {
        domains.withLock { domains in
            guard var state = domains[domain] else { return nil }
            guard !state.waiting.isEmpty else {
                state.running -= 1
                domains[domain] = state.running == 0 ? nil : state
                return nil
            }
            let group = take(&state)
            domains[domain] = state
            return group
        }
    }

    private func take(_ state: inout Domain) -> [OutboundClaim] {
        let count = min(perConnection, state.waiting.count)
        defer { state.waiting.removeFirst(count) }
        return Array(state.waiting.prefix(count))
    }
}
