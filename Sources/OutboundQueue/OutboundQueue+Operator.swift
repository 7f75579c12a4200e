import MailDelivery
import Storage

/// A message with recipients still waiting, as the operator sees it (`postern mail queue`, Postfix's `postqueue -p`).
public struct QueuedMessage: Sendable, Equatable {
    /// One waiting recipient.
    public struct Recipient: Sendable, Equatable {
        public var address: String
        public var attempts: Int
        /// Unix seconds.
        public var nextAttempt: Int64
        /// The last reply (a deferral's), or ``OutboundQueue/queuedReply`` before the first attempt.
        public var smtpReply: String
    }

    /// The submission's id.
    public var id: String
    public var sender: String
    /// Unix seconds when it was recorded.
    public var sendAt: Int64
    /// The message's size in bytes.
    public var size: Int
    public var recipients: [Recipient]
}

/// Which waiting recipients an operator's delete takes (`postern mail queue --delete`).
public enum QueueSelection: Sendable, Equatable {
    /// Every waiting recipient of one message (its submission id).
    case message(String)
    /// Every waiting recipient of every message from this sender (any case).
    case sender(String)
    /// Every waiting recipient of every message its holder answers for (`outbound_submissions.holder`).
    case holder(SubmissionHolder)
    /// Every waiting recipient at this destination domain.
    case domain(String)
    /// Every waiting recipient.
    case all
}

extension OutboundQueue {
    /// Every message with a recipient still queued, oldest first, with those recipients.
    public func list() async throws -> [QueuedMessage] {
        try await database.read { connection in
            var messages: [QueuedMessage] = []
            var index: [String: Int] = [:]
            for row in try connection.query(
                """
                SELECT r.submission_id, r.address, r.attempts, r.next_attempt, r.smtp_reply, s.sender, s.send_at,
                    (SELECT LENGTH(c.content) FROM outbound_contents c WHERE c.submission_id = s.id) AS size
                FROM outbound_recipients r JOIN outbound_submissions s ON s.id = r.submission_id
                WHERE r.status = 'queued' ORDER BY s.send_at, s.id, r.position
                """)
            {
                guard let id = row.text("submission_id"), let address = row.text("address"),
                    let sender = row.text("sender"), let sendAt = row.int("send_at")
                else { continue }
                let recipient = QueuedMessage.Recipient(
                    address: address, attempts: Int(row.int("attempts") ?? 0),
                    nextAttempt: row.int("next_attempt") ?? 0, smtpReply: row.text("smtp_reply") ?? "")
                if let at = index[id] {
                    messages[at].recipients.append(recipient)
                } else {
                    index[id] = messages.count
                    messages.append(
                        QueuedMessage(
                            id: id, sender: sender, sendAt: sendAt, size: Int(row.int("size") ?? 0),
                            recipients: [recipient]))
                }
            }
            return messages
        }
    }

    /// Makes the queued recipients of message `id` (of every message when nil) due now (Postfix's `postqueue -f`);
    /// a recipient leased by an attempt in progress keeps its lease. Returns how many recipients were made due.
    @discardableResult
    public func retryNow(id: String?, now: Int64) async throws -> Int {
        let count = try await database.write { connection in
            var sql = "UPDATE outbound_recipients SET next_attempt = ? WHERE status = 'queued'"
            var bindings: [SQLValue] = [.integer(now)]
            if let id {
                sql += " AND submission_id = ?"
                bindings.append(.text(id))
            }
            return try connection.run(sql, bindings)
        }
        if count > 0 { wakeup.signal() }
        return count
    }

    /// Deletes the waiting recipients `selection` names from the queue (Postfix's `postsuper -d`), in one transaction:
    /// they end `failed` with ``deletedReply`` (no DSN is sent; an attempt in progress loses its lease and records
    /// nothing), each message none of whose recipients waits any more loses its content, and the submissions stay
    /// readable with that status; ``onSubmissionChange`` is told of each sender. Returns how many recipients it
    /// removed.
    @discardableResult
    public func delete(_ selection: QueueSelection, now: Int64) async throws -> Int {
        let (condition, bindings) = Self.waiting(selection)
        let (count, senders) = try await database.write { connection in
            try connection.transaction { () throws -> (Int, Set<String>) in
                var submissions: [String: (account: String?, sender: String)] = [:]
                var count = 0
                for row in try connection.query(
                    """
                    SELECT r.id, r.submission_id, s.account_id, s.sender FROM outbound_recipients r
                    JOIN outbound_submissions s ON s.id = r.submission_id WHERE \(condition)
                    """, bindings)
                {
                    guard let id = row.text("id"), let submission = row.text("submission_id"),
                        let sender = row.text("sender")
                    else { continue }
                    count += try connection.run(
                        """
                        UPDATE outbound_recipients SET status = 'failed', smtp_reply = ?, \(Self.rows.released),
                            updated_at = ? WHERE id = ? AND status = 'queued'
                        """, [.text(Self.deletedReply), .integer(now), .text(id)])
                    submissions[submission] = (row.text("account_id"), sender)
                }
                for (id, submission) in submissions {
                    if let account = submission.account {
                        let seq = try Self.bump(account, connection)
                        try connection.run(
                            "UPDATE outbound_submissions SET updated_seq = ? WHERE id = ?", [.integer(seq), .text(id)])
                    }
                    try Self.dropContentIfDone(id, connection)
                }
                return (count, Set(submissions.values.map(\.sender)))
            }
        }
        for sender in senders { onSubmissionChange(sender) }
        return count
    }

    /// The SQL condition (over `outbound_recipients r` joined to `outbound_submissions s`) and its bindings of the
    /// waiting recipients `selection` names.
    private static func waiting(_ selection: QueueSelection) -> (String, [SQLValue]) {
        var condition = "r.status = 'queued'"
        var bindings: [SQLValue] = []
        switch selection {
        case .message(let id):
            condition += " AND r.submission_id = ?"
            bindings.append(.text(id))
        case .sender(let sender):
            condition += " AND LOWER(s.sender) = ?"
            bindings.append(.text(sender.lowercased()))
        case .holder(let holder):
            condition += " AND s.holder = ?"
            bindings.append(.text(holder.key))
        case .domain(let domain):
            condition += " AND r.domain = ?"
            bindings.append(.text(domain.lowercased()))
        case .all:
            break
        }
        return (condition, bindings)
    }

    /// The reason `address` is suppressed at `now`, nil when it is not.
    public func suppression(of address: String, now: Int64) async throws -> String? {
        try await database.read { connection in
            try connection.query(
                "SELECT reason FROM outbound_suppressions WHERE address = ? AND suppressed_until > ?",
                [.text(address.lowercased()), .integer(now)]
            ).first?.text("reason")
        }
    }
}

extension OutboundQueue {
    /// How long a submission's record is kept once none of its recipients waits: 30 days after it was sent. After
    /// that `EmailSubmission/get` finds it no more.
    public static let recordSeconds: Int64 = 30 * 86_400

    /// Deletes the records of submissions sent more than ``recordSeconds`` before `now` with no recipient waiting, and
    /// the suppressions that have ended (a purge schedule runs it every few minutes). Returns how many submissions went.
    @discardableResult
    public static func purge(_ connection: any SQLConnection, now: Int64) throws -> Int {
        let before = now - recordSeconds
        return try connection.transaction {
            let ended = """
                SELECT s.id FROM outbound_submissions s WHERE s.send_at < ? AND NOT EXISTS (
                    SELECT 1 FROM outbound_recipients r WHERE r.submission_id = s.id AND r.status = 'queued')
                """
            try connection.run("DELETE FROM outbound_recipients WHERE submission_id IN (\(ended))", [.integer(before)])
            try connection.run("DELETE FROM outbound_bounces WHERE submission_id IN (\(ended))", [.integer(before)])
            try connection.run("DELETE FROM outbound_contents WHERE submission_id IN (\(ended))", [.integer(before)])
            let removed = try connection.run(
                """
                DELETE FROM outbound_submissions WHERE send_at < ? AND NOT EXISTS (
                    SELECT 1 FROM outbound_recipients r WHERE r.submission_id = outbound_submissions.id
                    AND r.status = 'queued')
                """, [.integer(before)])
            try connection.run("DELETE FROM outbound_suppressions WHERE suppressed_until <= ?", [.integer(now)])
            return removed
        }
    }
}
