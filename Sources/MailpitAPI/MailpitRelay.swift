/// The port through which `POST /api/v1/message/{ID}/release` sends a stored message on as its sender's submission
/// (the composition root fills it with the one submission owner, which this surface does not know); nil when outbound
/// delivery is off.
public protocol MailpitRelay: Sendable {
    /// Submits `raw` (stored message `messageID`) from `sender` (the message's own `From`) to `recipients`, through
    /// the checks every submission of `sender`'s passes (written in `sender`'s own mailbox, never received; a mailbox
    /// here allowed to send outside now, its limits, its quota, the size limit); returns how many recipients were
    /// delivered here or queued to leave.
    /// - Throws: ``MailpitReleaseRefusal`` when a check refuses (nothing queued); storage errors.
    func release(_ raw: [UInt8], messageID: String, from sender: String, to recipients: [String]) async throws -> Int
}

/// Why a release queued nothing.
public enum MailpitReleaseRefusal: Error, Sendable, Equatable {
    /// The sender is no mailbox of this server: the queue sends only its own mailboxes' mail.
    case senderNotLocal(String)
    /// The message (its id) was received here, or written in another mailbox than its sender's: it is never sent on
    /// as its sender's mail (issue 81 item 7).
    case notWrittenBySender(messageID: String)
    /// The sender may not send outside now; `why` says so, for display.
    case held(sender: String, why: String)
    /// Another check of a submission refused it (who the message says it is from, a recipient, a limit, the size, the
    /// sender's quota); `why` for display.
    case refused(why: String)
}
