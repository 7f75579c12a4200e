import MailDelivery
import SMTPOutcomes

/// One ``OutboundBatch`` an instance leased from the queue: hand ``batch`` to the transport, then give the claim and
/// the outcomes back to ``OutboundQueue/complete(_:_:now:)``.
public struct OutboundClaim: Sendable, Equatable {
    /// One message for the recipients at one destination domain (`messageID` is the submission's id).
    public var batch: OutboundBatch
    /// The claim's lease: a completion under another token (the lease ran out and someone else claimed) records
    /// nothing.
    public var leaseToken: String
    /// Unix seconds when the submission was recorded (the queue lifetime counts from it).
    public var sendAt: Int64

    /// - Parameters: see the properties.
    public init(batch: OutboundBatch, leaseToken: String, sendAt: Int64) {
        self.batch = batch
        self.leaseToken = leaseToken
        self.sendAt = sendAt
    }
}

/// What completing a claim did.
public struct OutboundCompletion: Sendable, Equatable {
    /// A recipient whose queueing ended with this attempt (for the sender's DSN and the metrics).
    public struct Ended: Sendable, Equatable {
        public var recipient: String
        /// ``DeliveryStatus/delivered(_:)`` or ``DeliveryStatus/failed(_:)`` (for a recipient that ran out of queue
        /// lifetime, failed with its last deferral's failure).
        public var status: RecipientStatus
        public var remoteHost: String?
        /// True when it failed because the queue lifetime ran out (not a 5xx).
        public var expired: Bool
        /// True when the address is now suppressed (``DeliveryFailure/condemnsRecipientAddress``).
        public var suppressed: Bool

        /// - Parameters: see the properties.
        public init(recipient: String, status: RecipientStatus, remoteHost: String?, expired: Bool, suppressed: Bool) {
            self.recipient = recipient
            self.status = status
            self.remoteHost = remoteHost
            self.expired = expired
            self.suppressed = suppressed
        }
    }

    /// A recipient still deferred past ``OutboundQueueConfiguration/delayNoticeSeconds`` for the first time: its sender
    /// gets a delayed-delivery notice (marked in the same transaction, so once across restarts and instances).
    public struct Delayed: Sendable, Equatable {
        public var recipient: String
        /// Why it was deferred (``DeliveryStatus/deferred(_:)``).
        public var status: RecipientStatus
        public var remoteHost: String?
        /// When the queue gives up on it (Unix seconds): the notice's `Will-Retry-Until`.
        public var willRetryUntil: Int64

        /// - Parameters: see the properties.
        public init(recipient: String, status: RecipientStatus, remoteHost: String?, willRetryUntil: Int64) {
            self.recipient = recipient
            self.status = status
            self.remoteHost = remoteHost
            self.willRetryUntil = willRetryUntil
        }
    }

    /// Delivered or failed for good, in the batch's order.
    public var ended: [Ended]
    /// Deferred recipients and when each is due again (Unix seconds).
    public var deferred: [(recipient: String, nextAttempt: Int64)]
    /// True when the claim had lost its lease (or the message was deleted): nothing was recorded.
    public var leaseLost: Bool
    /// Deferred recipients whose sender is told of the delay now (each once), in ``delayNoticeEmailID``.
    public var delayed: [Delayed]
    /// The id of the bounce put in the sender's inbox in the same transaction, nil when none was (nothing failed,
    /// the sender has no mailbox here, or it refused the report).
    public var bounceEmailID: String?
    /// The id of the delay notice put in the sender's inbox in the same transaction, nil when none was (no delay to
    /// tell, the sender has no mailbox here, or it refused the report).
    public var delayNoticeEmailID: String?

    /// - Parameters: see the properties.
    public init(
        ended: [Ended], deferred: [(recipient: String, nextAttempt: Int64)], leaseLost: Bool, delayed: [Delayed] = [],
        bounceEmailID: String? = nil, delayNoticeEmailID: String? = nil
    ) {
        self.ended = ended
        self.deferred = deferred
        self.leaseLost = leaseLost
        self.delayed = delayed
        self.bounceEmailID = bounceEmailID
        self.delayNoticeEmailID = delayNoticeEmailID
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.ended == rhs.ended && lhs.leaseLost == rhs.leaseLost && lhs.delayed == rhs.delayed
            && lhs.bounceEmailID == rhs.bounceEmailID && lhs.delayNoticeEmailID == rhs.delayNoticeEmailID
            && lhs.deferred.map(\.recipient) == rhs.deferred.map(\.recipient)
            && lhs.deferred.map(\.nextAttempt) == rhs.deferred.map(\.nextAttempt)
    }
}
