import Directory
import EmailAddresses
import MailDelivery
import MailStore
import SMTPOutcomes

/// The checks a message's recipients on other domains pass before they may leave, one place for a new submission
/// (``Submitter/submit(_:now:)``) and for a release of held mail (`postern mail outbox --release`, an owner's button).
extension OutboundAdmission {
    /// Whether `adding` outside recipients of `sender` (whose quota is `quota`) with message `raw` may leave now: held
    /// for a reason (``standing(of:)``), or they leave, within the limits, the size limit and the sender's quota.
    /// - Throws: ``SubmissionRefusal`` ``SubmissionRefusal/limit(_:)``, ``SubmissionRefusal/tooLarge(maxBytes:)`` or
    ///   ``SubmissionRefusal/overQuota(queuedBytes:quota:)``; the sender rule's and the ledger's storage errors.
    public func admit(sender: String, quota: Int64, adding: Int, raw: [UInt8], now: Int64) async throws
        -> OutsideStanding
    {
        let standing = try await standing(of: sender)
        guard case .leaves(let holder) = standing else { return standing }
        do {
            try await ledger.checkLimits(limits, sender: sender, holder: holder, adding: adding, now: now)
        } catch let reached as SendLimitReached {
            throw SubmissionRefusal.limit(reached)
        }
        try await checkQueueRoom(raw, sender: sender, quota: quota)
        return standing
    }

    /// What a message to leave must fit: the outbound size limit, and the sender's quota with what it already has
    /// waiting in the queue (its mailbox is held to the quota on its own; the queue keeps a message up to
    /// `POSTERN_OUTBOUND_MAX_QUEUE_SECONDS` after its Sent copy is gone).
    /// - Throws: ``SubmissionRefusal/tooLarge(maxBytes:)`` or ``SubmissionRefusal/overQuota(queuedBytes:quota:)``.
    func checkQueueRoom(_ raw: [UInt8], sender: String, quota: Int64) async throws {
        guard raw.count <= maxMessageBytes else { throw SubmissionRefusal.tooLarge(maxBytes: maxMessageBytes) }
        let queued = try await ledger.queuedBytes(sender: sender)
        guard queued + Int64(raw.count) <= quota else {
            throw SubmissionRefusal.overQuota(queuedBytes: queued, quota: quota)
        }
    }

    /// Releases held message `id` of the outbox (``release(_:raw:quota:store:now:)``), its sender's quota as
    /// `directory` has it: the one release of `postern mail outbox --release` and an owner's button.
    /// - Parameters:
    ///   - sender: the sender whose message it must be (another sender's is the same as none); nil for any.
    ///   - now: Unix seconds.
    /// - Returns: nil when the outbox holds no such message; ``HeldRelease/senderNotLocal(_:)`` when its sender is no
    ///   account here any more (it stays held).
    /// - Throws: storage errors (nothing released).
    public func release(
        id: String, sender: String?, store: MailStore, directory: any AccountDirectory, now: Int64
    ) async throws -> HeldRelease? {
        guard let (entry, raw) = try await store.outboxMessage(id: id),
            sender.map({ EmailAddress.same($0, entry.sender) }) ?? true
        else { return nil }
        guard case .local(let account) = try await directory.resolve(entry.sender) else {
            return .senderNotLocal(entry.sender)
        }
        return try await release(entry, raw: raw, quota: account.quota, store: store, now: now)
    }

    /// Releases the held mail of outbox entry `entry` (message `raw`; `quota`, its sender's) through ``admit``: when
    /// the reason still holds or a check refuses, it stays held and says why; else its submission's held recipients
    /// are queued (``SubmissionLedger/release``) and the entry leaves the outbox.
    /// - Throws: storage errors (nothing released).
    public func release(_ entry: MailStore.OutboxEntry, raw: [UInt8], quota: Int64, store: MailStore, now: Int64)
        async throws -> HeldRelease
    {
        guard let submission = entry.submissionID else { return .unrecorded }
        let standing: OutsideStanding
        do {
            standing = try await admit(
                sender: entry.sender, quota: quota, adding: entry.recipients.count, raw: raw, now: now)
        } catch let refusal as SubmissionRefusal {
            return .refused(refusal.explanation)
        }
        switch standing {
        case .held(let reason):
            return .stillHeld(reason)
        case .leaves(let holder):
            let moved: Int
            do {
                moved = try await ledger.release(
                    submissionID: submission, addresses: entry.recipients, content: raw, holder: holder,
                    limits: limits, now: now)
            } catch let reached as SendLimitReached {
                return .refused(SubmissionRefusal.limit(reached).explanation)
            }
            try await store.removeFromOutbox(id: entry.id)
            return .released(moved)
        }
    }
}

/// What a release of held mail came to.
public enum HeldRelease: Sendable, Equatable {
    /// Its held recipients were queued to leave (or failed at once, an address suppressed after a hard bounce): how
    /// many; the entry left the outbox.
    case released(Int)
    /// The reason still holds: it stays held.
    case stillHeld(HeldReason)
    /// A check of a new submission refused it (a limit, its size, the sender's quota): why, in the words of
    /// ``SubmissionRefusal/explanation``, for display; it stays held.
    case refused(String)
    /// Kept before releases were recorded (no submission names it): it cannot be released; send it again.
    case unrecorded
    /// Its sender (named) is no account here any more: it stays held.
    case senderNotLocal(String)
}
