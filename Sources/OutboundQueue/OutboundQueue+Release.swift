import MailDelivery
import SMTPOutcomes
import Storage

extension OutboundQueue {
    /// Moves the held recipients `addresses` of submission `submissionID` on to the queue, as its record would have
    /// queued them, in one transaction: each becomes queued (or failed at once when its address is suppressed), the
    /// message is kept for them, the submission's `send_at` becomes `now` (the time it was released for delivery, RFC
    /// 8621 7, so the limits count it now) with `holder` answering for it, and the account's EmailSubmission state
    /// moves. Wakes this instance's dispatcher and tells ``onSubmissionChange``.
    /// - Returns: how many recipients were moved (none when the submission holds none of them held any more).
    /// - Throws: ``SendLimitReached`` (nothing moved) when they would pass one of `limits`; storage errors.
    public func release(
        submissionID: String, addresses: [String], content: [UInt8], holder: SubmissionHolder?, limits: [SendLimit],
        now: Int64
    ) async throws -> Int {
        let wanted = Set(addresses.map { $0.lowercased() })
        let moved: (count: Int, sender: String)? = try await database.write { connection in
            try connection.transaction {
                guard let submission = try connection.query(
                    "SELECT account_id, sender FROM outbound_submissions WHERE id = ?", [.text(submissionID)]
                ).first, let account = submission.text("account_id"), let sender = submission.text("sender")
                else { return nil }
                let held = try connection.query(
                    "SELECT id, address FROM outbound_recipients WHERE submission_id = ? AND status = 'held'",
                    [.text(submissionID)]
                ).compactMap { row -> (id: String, address: String)? in
                    guard let id = row.text("id"), let address = row.text("address"),
                        wanted.contains(address.lowercased())
                    else { return nil }
                    return (id, address)
                }
                guard !held.isEmpty else { return (0, sender) }
                let states = try Self.admitted(
                    held.map { SubmissionRecipient(address: $0.address, status: .queued) }, sender: sender,
                    holder: holder, limits: limits, now: now, connection)
                for (row, state) in zip(held, states) {
                    try connection.run(
                        """
                        UPDATE outbound_recipients SET status = ?, smtp_reply = ?, held_reason = NULL, remote = ?,
                            next_attempt = ?, updated_at = ? WHERE id = ?
                        """,
                        [
                            .text(Self.column(state.status)), .text(state.smtpReply),
                            .integer(state.status == .queued ? 1 : 0), .integer(now), .integer(now), .text(row.id),
                        ])
                }
                if states.contains(where: { $0.status == .queued }) {
                    try Self.keep(content, of: submissionID, existing: .kept, connection)
                }
                let seq = try Self.bump(account, connection)
                try connection.run(
                    "UPDATE outbound_submissions SET updated_seq = ?, send_at = ?, holder = ? WHERE id = ?",
                    [.integer(seq), .integer(now), holder.map { .text($0.key) } ?? .null, .text(submissionID)])
                return (held.count, sender)
            }
        }
        guard let moved, moved.count > 0 else { return 0 }
        announce(sender: moved.sender, wakingDispatcher: true)
        return moved.count
    }
}
