import MailDelivery
import MailStore
import MailSubmission
import SMTPOutcomes

/// Held mail of one sender, for an in-process caller that acts as that sender's account (the web inbox's owner).
extension JMAPService {
    /// The messages of `sender` held in the outbox, oldest first.
    /// - Throws: storage errors.
    public func heldMail(sender: String) async throws -> [HeldMessage] {
        try await outbound.heldMail(sender: sender, store: store)
    }

    /// Releases `sender`'s held message `id` through the checks of a new submission
    /// (``JMAPOutbound/release(id:sender:store:directory:now:)``); nil when `sender` holds no such message (another
    /// sender's is the same as none), or there is no ledger.
    /// - Throws: storage errors.
    public func releaseHeld(id: String, sender: String) async throws -> HeldRelease? {
        try await outbound.release(id: id, sender: sender, store: store, directory: directory, now: clock())
    }
}
