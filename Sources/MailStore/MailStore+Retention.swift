import Storage

/// How much mail the store keeps (issue 71 item 5): at most ``maxMessages`` for each address and none older than
/// ``maxAge``, the oldest pruned first. Both nil (the default): everything is kept, as before retention existed.
///
/// The count is an address's own, as a quota is (issue 81 item 8): an address past it loses its own oldest mail and
/// no other's, so whoever can send mail to one address (an outsider to its own temp-mail account) never pushes out
/// another account's. A Pro user's sandbox and the catch-all are each one address, so each is counted alone too.
public struct MailRetention: Sendable, Equatable {
    /// Most messages one address keeps; nil for no limit.
    public var maxMessages: Int?
    /// Seconds since arrival past which a message goes; nil for no limit.
    public var maxAge: Int64?

    public init(maxMessages: Int? = nil, maxAge: Int64? = nil) {
        self.maxMessages = maxMessages
        self.maxAge = maxAge
    }

    /// Whether nothing is ever pruned.
    public var isUnlimited: Bool { maxMessages == nil && maxAge == nil }
}

/// A message retention removed, and why.
public struct MailPruned: Sendable, Equatable {
    /// Why a message went.
    public enum Reason: String, Sendable, Equatable {
        /// Its address held more than ``MailRetention/maxMessages``; it was among that address's oldest.
        case count
        /// It arrived more than ``MailRetention/maxAge`` ago.
        case age
    }

    public var address: String
    public var id: String
    public var reason: Reason

    public init(address: String, id: String, reason: Reason) {
        self.address = address
        self.id = id
        self.reason = reason
    }
}

extension MailStore {
    /// Most messages one pass prunes, so that one pass holds the writer briefly; the next pass takes the rest.
    public static let pruneBatch = 2_000

    /// Deletes, oldest first (by arrival), what `retention` does not keep, through the store's delete (so each
    /// address's change log records the deletions, JMAP states move and waiters are woken, as for any delete).
    ///
    /// The age applies to every message; the count to each address on its own (``MailRetention``): an address keeps
    /// its newest ``MailRetention/maxMessages`` whatever other addresses hold, so one address's flood never pushes out
    /// another's mail.
    /// - Parameters:
    ///   - retention: the limits.
    ///   - now: Unix seconds (the caller's clock), against which ``MailRetention/maxAge`` is measured.
    /// - Returns: what was pruned: the aged first, oldest first; then, address by address, each address's oldest
    ///   past the count, oldest first; at most ``pruneBatch``.
    public func prune(_ retention: MailRetention, now: Int64) async throws -> [MailPruned] {
        guard !retention.isUnlimited else { return [] }
        return try await prune(.everyAddress, retention, now: now)
    }

    /// Deletes, oldest first, the messages of every address on `domains` (lower-cased) that arrived more than
    /// `maxAge` seconds before `now`, through the store's delete as ``prune(_:now:)`` does (mail.cx's implicit
    /// mailboxes, kept an hour). A domain that only ends alike (`xcx.test` for `cx.test`) is not touched.
    /// - Returns: what was pruned; at most ``pruneBatch``.
    public func prune(olderThan maxAge: Int64, onDomains domains: [String], now: Int64) async throws -> [MailPruned] {
        guard !domains.isEmpty else { return [] }
        return try await prune(.domains(domains), MailRetention(maxAge: maxAge), now: now)
    }

    /// One pass over `scope` in one transaction, at most ``pruneBatch`` messages in all; then every address that lost
    /// mail is announced, so waiting change streams look again.
    private func prune(_ scope: Scope, _ retention: MailRetention, now: Int64) async throws -> [MailPruned] {
        let pruned = try await database.write { connection in
            try connection.transaction { try Self.prune(scope, retention, now: now, connection) }
        }
        changes.pruned.record(pruned.map(\.id))
        changes.announce(Array(Set(pruned.map(\.address))))
        return pruned
    }

    /// Which addresses a pass covers.
    private enum Scope {
        /// Every address.
        case everyAddress
        /// Every address on these domains.
        case domains([String])

        /// The `WHERE` condition and its bindings.
        var condition: (sql: String, bindings: [SQLValue]) {
            switch self {
            case .everyAddress: return ("1 = 1", [])
            case .domains(let domains):
                let matches = Array(repeating: "address LIKE ? ESCAPE '\\'", count: domains.count)
                let patterns = domains.map { SQLValue.text("%@" + MailFilter.escapeLike($0)) }
                return ("(" + matches.joined(separator: " OR ") + ")", patterns)
            }
        }
    }

    /// One pass: the messages past the age, oldest first, then each address's past the count, at most
    /// ``pruneBatch`` in all.
    private static func prune(
        _ scope: Scope, _ retention: MailRetention, now: Int64, _ connection: any SQLConnection
    ) throws -> [MailPruned] {
        let (condition, bindings) = scope.condition
        var doomed: [MailPruned] = []
        if let maxAge = retention.maxAge {
            doomed += try connection.query(
                """
                SELECT address, id FROM mail_messages WHERE \(condition) AND received_at < ?
                ORDER BY received_seq LIMIT ?
                """, bindings + [.integer(now - maxAge), .integer(Int64(pruneBatch))]
            ).compactMap { row in
                guard let address = row.text("address"), let id = row.text("id") else { return nil }
                return MailPruned(address: address, id: id, reason: .age)
            }
        }
        try delete(doomed, connection)
        if let maxMessages = retention.maxMessages, doomed.count < pruneBatch {
            let counted = try pastCount(maxMessages, scope, room: pruneBatch - doomed.count, connection)
            try delete(counted, connection)
            doomed += counted
        }
        return doomed
    }

    /// The messages past `maxMessages` of each address of `scope` that holds more, oldest first within each
    /// address, at most `room` in all. Every step walks `mail_messages_by_address_seq` (migration 0066): the count
    /// by address, then, for each address past it, its newest message past the limit and what is older.
    private static func pastCount(
        _ maxMessages: Int, _ scope: Scope, room: Int, _ connection: any SQLConnection
    ) throws -> [MailPruned] {
        let (condition, bindings) = scope.condition
        let crowded = try connection.query(
            """
            SELECT address FROM mail_messages WHERE \(condition) GROUP BY address HAVING COUNT(*) > ?
            ORDER BY address
            """,
            bindings + [.integer(Int64(maxMessages))]
        ).compactMap { $0.text("address") }
        var doomed: [MailPruned] = []
        for address in crowded where doomed.count < room {
            // The newest message past the limit: it and everything older go.
            guard
                let cutoff = try connection.query(
                    """
                    SELECT received_seq FROM mail_messages WHERE address = ?
                    ORDER BY received_seq DESC LIMIT 1 OFFSET ?
                    """, [.text(address), .integer(Int64(maxMessages))]
                ).first?.int("received_seq")
            else { continue }
            doomed += try connection.query(
                "SELECT id FROM mail_messages WHERE address = ? AND received_seq <= ? ORDER BY received_seq LIMIT ?",
                [.text(address), .integer(cutoff), .integer(Int64(room - doomed.count))]
            ).compactMap { row in row.text("id").map { MailPruned(address: address, id: $0, reason: .count) } }
        }
        return doomed
    }

    /// Deletes `messages` through the delete every door uses: the change log's triggers record each for its address.
    private static func delete(_ messages: [MailPruned], _ connection: any SQLConnection) throws {
        for message in messages {
            _ = try connection.run(
                "DELETE FROM mail_messages WHERE address = ? AND id = ?", [.text(message.address), .text(message.id)])
        }
    }
}
