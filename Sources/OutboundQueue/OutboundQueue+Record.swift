import MailDelivery
import SMTPOutcomes
import Storage
import Time

extension OutboundQueue: SubmissionLedger {
    /// Records the submission `writing` returns in one transaction with `writing`'s own writes: the submission, every
    /// recipient's disposition (local ones as delivered or refused, outside ones queued, held ones with their reason)
    /// and, when a recipient is queued, the message. A queued recipient whose address is suppressed is `failed` at
    /// once with the suppression as its reply, and does not count against the limits. The envelope, when given, is
    /// kept with it. Wakes this instance's dispatcher when something was queued, and tells ``onSubmissionChange`` of
    /// the new state.
    /// - Throws: ``SendLimitReached`` when the recipients queued would pass one of `limits` (counted in the same
    ///   transaction, so concurrent submissions cannot both pass); what `writing` throws; storage errors. Either way
    ///   nothing is recorded, and nothing `writing` wrote is kept.
    public func record(
        limits: [SendLimit], now: Int64,
        writing: @escaping @Sendable (any SQLConnection) throws -> NewSubmission
    ) async throws -> SubmissionRecord {
        let record = try await database.write { connection in
            try connection.transaction {
                let submission = try writing(connection)
                let states = try Self.admitted(
                    submission.recipients, sender: submission.sender, holder: submission.holder, limits: limits,
                    now: now, connection)
                let seq = try Self.bump(submission.accountID, connection)
                try connection.run(
                    """
                    INSERT INTO outbound_submissions (id, account_id, sender, email_id, thread_id, send_at, created_seq,
                        updated_seq, holder, envelope_mail_from, envelope_rcpt_to)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(submission.id), .text(submission.accountID), .text(submission.sender),
                        .text(submission.emailID), .text(submission.threadID), .integer(submission.sendAt),
                        .integer(seq), .integer(seq), submission.holder.map { .text($0.key) } ?? .null,
                        submission.envelope.map { SQLValue.text($0.mailFrom) } ?? .null,
                        submission.envelope.map { SQLValue.text(Self.lines($0.rcptTo)) } ?? .null,
                    ])
                for (position, state) in states.enumerated() {
                    try connection.run(
                        """
                        INSERT INTO outbound_recipients (id, submission_id, position, address, domain, remote, status,
                            smtp_reply, next_attempt, updated_at, held_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text("\(submission.id):\(position)"), .text(submission.id), .integer(Int64(position)),
                            .text(state.address), .text(Self.domain(of: state.address)),
                            .integer(state.status == .queued ? 1 : 0), .text(Self.column(state.status)),
                            .text(state.smtpReply), .integer(now), .integer(now), Self.heldColumn(state.status),
                        ])
                }
                if states.contains(where: { $0.status == .queued }) {
                    try Self.keep(submission.content, of: submission.id, existing: .refused, connection)
                }
                return SubmissionRecord(
                    id: submission.id, accountID: submission.accountID, sender: submission.sender,
                    emailID: submission.emailID, threadID: submission.threadID, sendAt: submission.sendAt,
                    recipients: states, envelope: submission.envelope)
            }
        }
        announce(sender: record.sender, wakingDispatcher: record.recipients.contains(where: { $0.status == .queued }))
        return record
    }

    /// The admission of recipients about to be queued, the same for a record and a release, in the caller's
    /// transaction: each checked against the suppressions (``disposition(_:now:_:)``), and those still queued against
    /// `limits` (``check(_:sender:holder:adding:now:_:)``) when there is any.
    /// - Returns: each recipient's state, in order.
    /// - Throws: ``SendLimitReached``; storage errors.
    static func admitted(
        _ recipients: [SubmissionRecipient], sender: String, holder: SubmissionHolder?, limits: [SendLimit], now: Int64,
        _ connection: any SQLConnection
    ) throws -> [RecipientState] {
        let states = try recipients.map { try disposition($0, now: now, connection) }
        let queued = states.filter { $0.status == .queued }.count
        if queued > 0 {
            try check(limits, sender: sender, holder: holder, adding: queued, now: now, connection)
        }
        return states
    }

    /// What ``keep(_:of:existing:_:)`` does when the submission's message is kept already.
    enum KeptContent {
        /// The insert fails (a new record never has one).
        case refused
        /// The kept one stays (a release of a submission some of whose recipients were queued before).
        case kept
    }

    /// Keeps `content`, the message of submission `submissionID`, for its queued recipients, in the caller's
    /// transaction.
    static func keep(
        _ content: [UInt8], of submissionID: String, existing: KeptContent, _ connection: any SQLConnection
    ) throws {
        let conflict = existing == .kept ? " ON CONFLICT (submission_id) DO NOTHING" : ""
        try connection.run(
            "INSERT INTO outbound_contents (submission_id, content) VALUES (?, ?)\(conflict)",
            [.text(submissionID), .blob(content)])
    }

    /// After a record or a release committed: wakes this instance's dispatcher when asked (something was queued),
    /// and tells ``onSubmissionChange`` that `sender`'s submissions moved.
    func announce(sender: String, wakingDispatcher: Bool) {
        if wakingDispatcher { wakeup.signal() }
        onSubmissionChange(sender)
    }

    /// The envelope's `RCPT TO` addresses as kept, one a line; JMAP gives only addresses without control characters.
    static func lines(_ addresses: [String]) -> String {
        addresses.joined(separator: "\n")
    }

    /// A recipient's state as recorded: a queued one checked against the suppressions.
    static func disposition(_ recipient: SubmissionRecipient, now: Int64, _ connection: any SQLConnection)
        throws -> RecipientState
    {
        let address = recipient.address
        switch recipient.status {
        case .delivered, .failed, .held, .deferred:
            return RecipientState(address: address, status: recipient.status)
        case .queued:
            if let suppression = try connection.query(
                "SELECT suppressed_until, reason FROM outbound_suppressions WHERE address = ? AND suppressed_until > ?",
                [.text(address.lowercased()), .integer(now)]
            ).first, let until = suppression.int("suppressed_until") {
                let reason = suppression.text("reason") ?? ""
                return RecipientState(
                    address: address,
                    status: .failed(
                        "550 5.1.1 <\(address)> bounced (\(reason)): no attempts until \(RFC3339.format(until))"))
            }
            return RecipientState(address: address, status: .queued)
        }
    }

    /// The `status` column of a recipient in `status` (a deferred one waits: `queued`).
    static func column<D, F>(_ status: DeliveryStatus<D, F>) -> String {
        switch status {
        case .queued, .deferred: "queued"
        case .held: "held"
        case .delivered: "delivered"
        case .failed: "failed"
        }
    }

    /// The `held_reason` column of a recipient in `status`: the reason's code when held, NULL otherwise.
    static func heldColumn<D, F>(_ status: DeliveryStatus<D, F>) -> SQLValue {
        if case .held(let reason) = status { return .text(reason.code) }
        return .null
    }

    /// A recipient's status read back: the `status` column's case, its stored reply for display (a queued recipient
    /// with attempts behind it is deferred), a held one's reason from `held_reason`; nil for a column it does not
    /// know, or a held row without a reason it knows.
    static func recorded(status: String, reply: String, attempts: Int64, heldReason: String?) -> RecordedStatus? {
        switch status {
        case "queued": attempts > 0 ? .deferred(reply) : .queued
        case "held": heldReason.flatMap(HeldReason.init(rawValue:)).map { .held($0) }
        case "delivered": .delivered(reply)
        case "failed": .failed(reply)
        default: nil
        }
    }

    /// Throws when `adding` more recipients queued by `sender` now would pass one of `limits`: a recipient counts
    /// while its submission's `send_at` is within the window (`send_at > now - window`), against the limits of its
    /// sender and, when it was recorded with a holder, those of its holder (every sender of theirs together).
    static func check(
        _ limits: [SendLimit], sender: String, holder: SubmissionHolder?, adding: Int, now: Int64,
        _ connection: any SQLConnection
    ) throws {
        for limit in limits {
            let counted: (column: String, key: String)
            switch limit.scope {
            case .sender: counted = ("s.sender", sender)
            case .holder:
                guard let holder else { continue }
                counted = ("s.holder", holder.key)
            }
            let sent = try connection.query(
                """
                SELECT s.send_at FROM outbound_recipients r JOIN outbound_submissions s ON s.id = r.submission_id
                WHERE \(counted.column) = ? AND s.send_at > ? AND r.remote = 1 ORDER BY s.send_at
                """, [.text(counted.key), .integer(now - limit.windowSeconds)]
            ).compactMap { $0.int("send_at") }
            let excess = sent.count + adding - limit.count
            guard excess > 0 else { continue }
            // The excess-th oldest send leaves the window at its time + the window; a submission larger than the limit
            // never fits, and is told the whole window.
            let freesAt = excess <= sent.count ? sent[excess - 1] + limit.windowSeconds : now + limit.windowSeconds
            throw SendLimitReached(limit: limit, freesAt: freesAt)
        }
    }

    /// Checks, before anything is sent, that `adding` more outside recipients of `sender` (answered for by `holder`)
    /// fit `limits` now (the record checks again in its transaction).
    /// - Throws: ``SendLimitReached`` naming the first limit they would pass.
    public func checkLimits(
        _ limits: [SendLimit], sender: String, holder: SubmissionHolder?, adding: Int, now: Int64
    ) async throws {
        guard adding > 0, !limits.isEmpty else { return }
        try await database.read { connection in
            try Self.check(limits, sender: sender, holder: holder, adding: adding, now: now, connection)
        }
    }

    /// Recipients queued to leave (suppressed, held and local ones not counted) of submissions `sender` recorded at
    /// or after `since` (Unix seconds): what the per-sender limits count.
    public func sentCount(sender: String, since: Int64) async throws -> Int {
        try await database.read { connection in
            Int(
                try connection.query(
                    """
                    SELECT COUNT(*) AS n FROM outbound_recipients r
                    JOIN outbound_submissions s ON s.id = r.submission_id
                    WHERE s.sender = ? AND s.send_at >= ? AND r.remote = 1
                    """, [.text(sender), .integer(since)]
                ).first?.int("n") ?? 0)
        }
    }
}
