import MailDelivery
import MailStore
import SMTPOutcomes

/// Held mail of one sender, for an in-process caller that acts as that sender's account (the web inbox's owner).
extension JMAPService {
    /// One message `sender` submitted whose recipients on other domains are held, and why (nil when no reason was
    /// recorded: kept before reasons were).
    public struct HeldMessage: Sendable, Equatable {
        public var entry: MailStore.OutboxEntry
        public var reason: HeldReason?
    }

    /// The messages of `sender` held in the outbox, oldest first (none without a ledger).
    /// - Throws: storage errors.
    public func heldMail(sender: String) async throws -> [HeldMessage] {
        guard let outbound else { return [] }
        let wanted = sender.lowercased()
        var held: [HeldMessage] = []
        for entry in try await store.outbox() where entry.sender.lowercased() == wanted {
            var reason: HeldReason?
            if let submission = entry.submissionID {
                reason = try await outbound.ledger.heldReason(submissionID: submission)
            }
            held.append(HeldMessage(entry: entry, reason: reason))
        }
        return held
    }

    /// Releases `sender`'s held message `id` through the checks of a new submission (``JMAPOutbound/release``); nil
    /// when `sender` holds no such message (another sender's is the same as none), or there is no ledger.
    /// - Throws: storage errors.
    public func releaseHeld(id: String, sender: String) async throws -> HeldRelease? {
        guard let outbound, let (entry, raw) = try await store.outboxMessage(id: id),
            entry.sender.lowercased() == sender.lowercased()
        else { return nil }
        guard case .local(let account) = try await directory.resolve(entry.sender) else { return nil }
        return try await outbound.release(entry, raw: raw, quota: account.quota, store: store, now: clock())
    }
}
