import MailDelivery
import Storage

extension OutboundQueue {
    /// The submissions of `accountID` with the given ids (those that exist, in the order asked), or all of the
    /// account's, oldest first, when `ids` is nil.
    public func submissions(accountID: String, ids: [String]?) async throws -> [SubmissionRecord] {
        if let ids, ids.isEmpty { return [] }
        return try await database.read { connection in
            var sql = """
                SELECT id, account_id, sender, email_id, thread_id, send_at, envelope_mail_from, envelope_rcpt_to
                FROM outbound_submissions WHERE account_id = ?
                """
            var bindings: [SQLValue] = [.text(accountID)]
            if let ids {
                sql += " AND id IN (" + Array(repeating: "?", count: ids.count).joined(separator: ", ") + ")"
                bindings += ids.map(SQLValue.text)
            }
            sql += " ORDER BY created_seq"
            var records: [SubmissionRecord] = []
            for row in try connection.query(sql, bindings) {
                guard let id = row.text("id"), let sender = row.text("sender"), let email = row.text("email_id"),
                    let thread = row.text("thread_id"), let sendAt = row.int("send_at")
                else { continue }
                let recipients = try connection.query(
                    """
                    SELECT address, status, smtp_reply, attempts, held_reason FROM outbound_recipients
                    WHERE submission_id = ?
                    ORDER BY position
                    """,
                    [.text(id)]
                ).compactMap { row -> RecipientState? in
                    guard let address = row.text("address"), let reply = row.text("smtp_reply"),
                        let status = Self.recorded(
                            status: row.text("status") ?? "", reply: reply, attempts: row.int("attempts") ?? 0,
                            heldReason: row.text("held_reason"))
                    else { return nil }
                    return RecipientState(address: address, status: status)
                }
                let envelope = row.text("envelope_mail_from").map { mailFrom in
                    SubmissionEnvelope(
                        mailFrom: mailFrom,
                        rcptTo: (row.text("envelope_rcpt_to") ?? "").split(separator: "\n").map(String.init))
                }
                let bounces = try connection.query(
                    "SELECT email_id FROM outbound_bounces WHERE submission_id = ? ORDER BY created_at, email_id",
                    [.text(id)]
                ).compactMap { $0.text("email_id") }
                records.append(
                    SubmissionRecord(
                        id: id, accountID: accountID, sender: sender, emailID: email, threadID: thread, sendAt: sendAt,
                        recipients: recipients, envelope: envelope, bounceEmailIDs: bounces))
            }
            guard let ids else { return records }
            let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            return ids.compactMap { byID[$0] }
        }
    }

    /// The account's current `EmailSubmission` state: its change sequence, `"0"` before its first submission.
    public func state(accountID: String) async throws -> String {
        String(try await sequence(accountID))
    }

    private func sequence(_ accountID: String) async throws -> Int64 {
        try await database.read { connection in
            try connection.query(
                "SELECT seq FROM outbound_account_states WHERE account_id = ?", [.text(accountID)]
            ).first?.int("seq") ?? 0
        }
    }

    /// The account's submissions recorded (`created`) or moved (`updated`) since `state`, at most `maxChanges`
    /// (at least 1) of them, oldest change first; nil when `state` is not a sequence this queue gave.
    public func changes(accountID: String, since state: String, maxChanges: Int) async throws -> SubmissionChanges? {
        guard let since = Int64(state), since >= 0, String(since) == state else { return nil }
        let limit = max(1, maxChanges)
        return try await database.read { connection in
            try connection.readTransaction { () throws -> SubmissionChanges? in
                let current =
                    try connection.query(
                        "SELECT seq FROM outbound_account_states WHERE account_id = ?", [.text(accountID)]
                    ).first?.int("seq") ?? 0
                guard since <= current else { return nil }
                let rows = try connection.query(
                    """
                    SELECT id, created_seq, updated_seq FROM outbound_submissions
                    WHERE account_id = ? AND updated_seq > ? ORDER BY updated_seq LIMIT ?
                    """, [.text(accountID), .integer(since), .integer(Int64(limit + 1))])
                let more = rows.count > limit
                let taken = rows.prefix(limit)
                var created: [String] = []
                var updated: [String] = []
                for row in taken {
                    guard let id = row.text("id") else { continue }
                    if (row.int("created_seq") ?? 0) > since { created.append(id) } else { updated.append(id) }
                }
                let newState = more ? (taken.last?.int("updated_seq") ?? current) : current
                return SubmissionChanges(
                    newState: String(newState), hasMoreChanges: more, created: created, updated: updated)
            }
        }
    }
}
