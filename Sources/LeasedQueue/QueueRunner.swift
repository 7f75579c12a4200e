import Logging

/// The one loop under every leased queue's dispatcher (the webhook queue's, the outbound queue's): a round (claim
/// what is due and hand it on), again at once while rounds find work, otherwise a wait on the queue's ``Wakeup`` until
/// a signal, the next due time the round gave, or ``idleInterval`` (what another instance queued without a signal
/// here), whichever comes first. A round that throws (the database unreachable) is logged and tried again after the
/// idle interval. Returns when the calling task is cancelled; what the rounds started is the caller's to end.
public struct QueueRunner: Sendable {
    /// What one round came to.
    public struct Round: Sendable, Equatable {
        /// Whether it found work: the next round starts at once.
        public var worked: Bool
        /// How long until the next row falls due or its lease runs out, when the queue knows; zero runs the next round
        /// at once, nil waits the idle interval.
        public var nextDueIn: Duration?

        /// - Parameters: see the properties.
        public init(worked: Bool, nextDueIn: Duration? = nil) {
            self.worked = worked
            self.nextDueIn = nextDueIn
        }

        /// A round that found work.
        public static let worked = Round(worked: true)
    }

    /// What wakes the loop between rounds.
    public let wakeup: Wakeup
    /// The longest wait between rounds.
    public let idleInterval: Duration
    let logger: Logger
    /// What a round that throws is logged as.
    let failure: Logger.Message

    /// - Parameters:
    ///   - wakeup: signalled when the queue may have work.
    ///   - idleInterval: the longest wait between rounds.
    ///   - logger: where a failed round is logged, at error level, as `failure` with the error in its metadata.
    public init(wakeup: Wakeup, idleInterval: Duration, logger: Logger, failure: Logger.Message) {
        self.wakeup = wakeup
        self.idleInterval = idleInterval
        self.logger = logger
        self.failure = failure
    }

    /// Runs `round` until the calling task is cancelled.
    public func run(_ round: () async throws -> Round) async {
        while !Task.isCancelled {
            let ticket = wakeup.ticket()
            var pause = idleInterval
            do {
                let result = try await round()
                if result.worked { continue }
                if let due = result.nextDueIn { pause = min(pause, due) }
            } catch {
                logger.error(failure, metadata: ["error": "\(error)"])
            }
            guard pause > .zero else { continue }
            await wakeup.wait(after: ticket, timeout: pause)
        }
    }
}
