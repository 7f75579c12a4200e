import MailDelivery
import MailStore
import SMTPOutcomes

/// Held mail as its callers list it: an owner's page (one sender's) and `postern mail outbox` (every sender's).
extension OutboundAdmission {
    /// The messages the outbox holds, oldest first, of `sender` only when one is named, each with why it is held:
    /// one read of the outbox and one of the ledger, whatever their number.
    /// - Throws: storage errors.
    public func heldMail(sender: String?, store: MailStore) async throws -> [HeldMessage] {
        let entries = try await store.outbox(sender: sender)
        let reasons = try await ledger.heldReasons(submissionIDs: entries.compactMap(\.submissionID))
        return entries.map { entry in
            HeldMessage(entry: entry, reason: entry.submissionID.flatMap { reasons[$0] })
        }
    }
}

/// One message held in the outbox (its recipients on other domains not sent), and why: nil when no reason was
/// recorded (kept before reasons were).
public struct HeldMessage: Sendable, Equatable {
    public var entry: MailStore.OutboxEntry
    public var reason: HeldReason?
}
