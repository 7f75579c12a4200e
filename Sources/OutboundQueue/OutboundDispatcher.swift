import Logging
import MailDelivery
import Synchronization

/// Runs the outbound queue: each instance runs one. It claims due batches (``OutboundQueue/claim(now:limit:)``), hands
/// each to the ``OutboundTransport`` with at most ``OutboundQueueConfiguration/perDestination`` batches at once per
/// destination domain, completes it (the completion bounces failures to the sender itself, in its transaction), and
/// gives the recipients that ended to ``onEnded``.
///
/// It wakes when a record on this instance queues mail (``OutboundWakeup``), when an attempt ends, when the next retry
/// or lease falls due, and at the latest every ``Settings/idleInterval`` (mail another instance queued).
public final class OutboundDispatcher: Sendable {
    /// The settings of a dispatcher; every default stated.
    public struct Settings: Sendable {
        /// Batches in flight at once on this instance, every domain's together. Default 64.
        public var maxInFlight = 64
        /// The longest sleep between looks at the queue. Default 5 s.
        public var idleInterval: Duration = .seconds(5)

        public init() {}
    }

    /// What one attempt at a batch came to, for the metrics.
    public struct Attempt: Sendable {
        public var batch: OutboundBatch
        public var completion: OutboundCompletion
    }

    let queue: OutboundQueue
    let transport: any OutboundTransport
    let settings: Settings
    /// Unix seconds now.
    let clock: @Sendable () -> Int64
    let logger: Logger
    let onEnded: @Sendable (OutboundClaim, [OutboundCompletion.Ended]) async -> Void
    let onAttempt: @Sendable (Attempt) -> Void
    private let slots: DestinationSlots
    private let inFlight = Atomic<Int>(0)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - queue: the shared queue (its configuration's `perDestination` caps each domain's batches at once).
    ///   - transport: what carries a batch (direct to the MX, or a relay).
    ///   - clock: Unix seconds; injected so tests can move time past the retry delays.
    ///   - onEnded: given each claim's recipients that ended (delivered or failed for good) once they are recorded
    ///     (tests watch with it; bounces are the queue's own).
    ///   - onAttempt: given every recorded attempt (metrics).
    public init(
        queue: OutboundQueue, transport: any OutboundTransport, settings: Settings = Settings(),
        clock: @escaping @Sendable () -> Int64, logger: Logger,
        onEnded: @escaping @Sendable (OutboundClaim, [OutboundCompletion.Ended]) async -> Void = { _, _ in },
        onAttempt: @escaping @Sendable (Attempt) -> Void = { _ in }
    ) {
        self.queue = queue
        self.transport = transport
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.onEnded = onEnded
        self.onAttempt = onAttempt
        self.slots = DestinationSlots(perDestination: queue.configuration.perDestination)
    }

    /// Runs the queue until the calling task is cancelled, then returns once the attempts in flight have ended: the
    /// entry a service runner calls. ``start()`` and ``stop()`` run it on a task of its own.
    public func run() async {
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
            while !Task.isCancelled {
                let ticket = queue.wakeup.ticket()
                var pause = settings.idleInterval
                let room = settings.maxInFlight - inFlight.load(ordering: .relaxed)
                if room > 0 {
                    do {
                        let now = clock()
                        let claims = try await queue.claim(now: now, limit: room)
                        for claim in claims {
                            inFlight.add(1, ordering: .relaxed)
                            group.addTask {
                                await self.attempt(claim)
                                self.inFlight.subtract(1, ordering: .relaxed)
                                self.queue.wakeup.signal()
                            }
                        }
                        if !claims.isEmpty { continue }
                        if let due = try await queue.nextDue(), due > now {
                            pause = min(pause, .seconds(due - now))
                        }
                    } catch {
                        logger.error("outbound queue unavailable", metadata: ["error": "\(error)"])
                    }
                }
                await queue.wakeup.wait(after: ticket, timeout: pause)
            }
            // Leaving the group's scope waits for the attempts in flight.
        }
    }

    /// One batch: a slot of its domain and the transport, with its lease renewed meanwhile, then the completion and
    /// ``onEnded``.
    func attempt(_ claim: OutboundClaim) async {
        let batch = claim.batch
        let outcomes = await withTaskGroup(of: [OutboundOutcome]?.self) { group in
            group.addTask {
                await self.keepLeased(claim)
                return nil
            }
            group.addTask { await self.slots.run(batch.domain) { await self.transport.deliver(batch) } }
            var outcomes: [OutboundOutcome] = []
            for await result in group {
                guard let result else { continue }
                outcomes = result
                group.cancelAll()
            }
            return outcomes
        }
        do {
            let completion = try await queue.complete(claim, outcomes, now: clock())
            if completion.leaseLost {
                logger.notice(
                    "an outbound attempt outlived its lease: nothing recorded",
                    metadata: ["message": "\(batch.messageID)", "domain": "\(batch.domain)"])
                return
            }
            onAttempt(Attempt(batch: batch, completion: completion))
            if !completion.ended.isEmpty { await onEnded(claim, completion.ended) }
        } catch {
            // Its lease runs out and the batch is tried again.
            logger.error(
                "recording an outbound attempt failed",
                metadata: ["error": "\(error)", "message": "\(batch.messageID)", "domain": "\(batch.domain)"])
        }
    }

    /// Renews `claim`'s lease every third of it until cancelled (the attempt ended) or the lease is lost.
    func keepLeased(_ claim: OutboundClaim) async {
        let interval = Duration.milliseconds(max(1, queue.leaseSeconds * 1000 / 3))
        while !Task.isCancelled {
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            do {
                guard try await queue.renew(claim, now: clock()) else { return }
            } catch {
                logger.error(
                    "renewing an outbound lease failed",
                    metadata: ["error": "\(error)", "message": "\(claim.batch.messageID)"])
            }
        }
    }

    /// Starts the loop on a task of its own (once).
    public func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in await run() }
        }
    }

    /// Stops the loop and waits for the attempts in flight to end.
    public func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            task?.cancel()
            return task
        }
        await running?.value
    }
}

/// At most `perDestination` bodies at once per destination domain; the others wait their turn, in order.
final class DestinationSlots: Sendable {
    private struct Domain {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let perDestination: Int
    private let domains = Mutex<[String: Domain]>([:])

    init(perDestination: Int) {
        self.perDestination = perDestination
    }

    /// Runs `body` once `domain` has a free slot.
    func run<T: Sendable>(_ domain: String, _ body: () async -> T) async -> T {
        await acquire(domain)
        let value = await body()
        release(domain)
        return value
    }

    private func acquire(_ domain: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = domains.withLock { domains -> Bool in
                if domains[domain, default: Domain()].running < perDestination {
                    domains[domain, default: Domain()].running += 1
                    return true
                }
                domains[domain, default: Domain()].waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func release(_ domain: String) {
        let next = domains.withLock { domains -> CheckedContinuation<Void, Never>? in
            guard var state = domains[domain] else { return nil }
            if state.waiting.isEmpty {
                state.running -= 1
                domains[domain] = state.running == 0 ? nil : state
                return nil
            }
            // The slot passes straight to the next in line.
            let next = state.waiting.removeFirst()
            domains[domain] = state
            return next
        }
        next?.resume()
    }
}
