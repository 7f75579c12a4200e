/// Where one recipient of one message stands: the one status of a recipient's fate, from the SMTP session's result
/// through the transport's outcome to the queue's record and JMAP's `deliveryStatus` (after Stalwart's
/// `Status<T, E>`: scheduled, completed, temporary and permanent failure).
///
/// `Delivered` and `Failure` are what each layer knows: the session and the transport carry an ``SMTPReply`` and a
/// ``DeliveryFailure``; a record read back from storage carries the reply line it stored, for display.
public enum DeliveryStatus<Delivered: Sendable & Equatable, Failure: Sendable & Equatable>: Sendable, Equatable {
    /// Waiting for its first attempt.
    case queued
    /// Kept in this server's outbox and not sent (outbound delivery off, or a sender that may not send outside): why,
    /// typed. It may be released once the reason goes away.
    case held(HeldReason)
    /// Accepted by the server that answered (or put in a local mailbox): its reply.
    case delivered(Delivered)
    /// Not delivered this time (a `4xx`, no connection, a timeout): why. In the queue, due again later.
    case deferred(Failure)
    /// Refused for good (a `5xx`, no such domain, the queue's lifetime run out, a full local mailbox): why.
    case failed(Failure)

    /// Whether the recipient still waits for an attempt (``queued`` or ``deferred``).
    public var isWaiting: Bool {
        switch self {
        case .queued, .deferred: true
        case .held, .delivered, .failed: false
        }
    }

    /// The same status with its payloads mapped.
    public func map<D, F>(delivered: (Delivered) -> D, failure: (Failure) -> F) -> DeliveryStatus<D, F> {
        switch self {
        case .queued: .queued
        case .held(let reason): .held(reason)
        case .delivered(let reply): .delivered(delivered(reply))
        case .deferred(let why): .deferred(failure(why))
        case .failed(let why): .failed(failure(why))
        }
    }
}

/// A recipient's status while an attempt is made or recorded: the server's reply, or why not.
public typealias RecipientStatus = DeliveryStatus<SMTPReply, DeliveryFailure>
