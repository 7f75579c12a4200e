import Storage

/// How much mail the store keeps (issue 71 item 5): at most ``maxMessages`` a scope and none older than ``maxAge``,
/// the oldest pruned first. Both nil (the default): everything is kept, as before retention existed.
public struct MailRetention: Sendable, Equatable {
    /// Most messages a scope keeps; nil for no limit.
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
        /// Its scope held more than ``MailRetention/maxMessages``; it was among the oldest.
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
    /// Scopes are counted apart: each address of `separately` (the Pro users' sandboxes) on its own, every other
    /// address together (the server's mail), so one scope's flood never pushes out another's mail.
    /// - Parameters:
    ///   - retention: the limits.
    ///   - separately: the addresses counted each on its own.
    ///   - now: Unix seconds (the caller's clock), against which ``MailRetention/maxAge`` is measured.
    /// - Returns: what was pruned, oldest first within each scope; at most ``pruneBatch``.
    public func prune(_ retention: MailRetention, separately: [String] = [], now: Int64) async throws -> [MailPruned] {
        guard !retention.isUnlimited else { return [] }
        return try await prune([Scope.rest(separately)] + separately.map(Scope.one), retention, now: now)
    }

    /// Deletes, oldest first, the messages of every address on `domains` (lower-cased) that arrived more than
    /// `maxAge` seconds before `now`, through the store's delete as ``prune(_:separately:now:)`` does (mail.cx's
    /// implicit mailboxes, kept an hour). A domain that only ends alike (`xcx.test` for `cx.test`) is not touched.
    /// - Returns: what was pruned; at most ``pruneBatch``.
    public func prune(olderThan maxAge: Int64, onDomains domains: [String], now: Int64) async throws -> [MailPruned] {
        guard !domains.isEmpty else { return [] }
        return try await prune([.domains(domains)], MailRetention(maxAge: maxAge), now: now)
    }

    /// One pass over `scopes` in one transaction, at most ``pruneBatch`` messages in all; then every address that
    /// lost mail is announced, so waiting change streams look again.
    private func prune(_ scopes: [Scope], _ retention: MailRetention, now: Int64) async throws -> [MailPruned] {
        let pruned = try await database.write { connection in
            try connection.transaction {
                var pruned: [MailPruned] = []
                for scope in scopes {
                    guard pruned.count < Self.pruneBatch else { break }
                    pruned += try Self.prune(scope, retention, now: now, room: Self.pruneBatch - pruned.count, connection)
                }
                return pruned
            }
        }
        changes.pruned.record(pruned.map(\.id))
        changes.announce(Array(Set(pruned.map(\.address))))
        return pruned
    }

    /// Which addresses a count covers.
    private enum Scope {
        /// Every address but these.
        case rest([String])
        /// This address.
        case one(String)
        /// Every address on these domains.
        case domains([String])

        /// The `WHERE` condition and its bindings.
        var condition: (sql: String, bindings: [SQLValue]) {
            switch self {
            case .one(let address): return ("address = ?", [.text(address)])
            case .domains(let domains):
                let matches = Array(repeating: "address LIKE ? ESCAPE '\\'", count: domains.count)
                let patterns = domains.map { SQLValue.text("%@" + MailFilter.escapeLike($0)) }
                return ("(" + matches.joined(separator: " OR ") + ")", patterns)
            case .rest(let excluded):
                guard !excluded.isEmpty else { return ("1 = 1", []) }
                let marks = Array(repeating: "?", count: excluded.count).joined(separator: ", ")
                return ("address NOT IN (\(marks))", excluded.map(SQLValue.text))
            }
        }
    }

    /// One scope's pass: the messages past the age, then those past the count, oldest first, at most `room`.
    private static func prune(
        _ scope: Scope, _ retention: MailRetention, now: Int64, room: Int, _ connection: any SQLConnection
    ) throws -> [MailPruned] {
        let (condition, bindings) = scope.condition
        var doomed: [MailPruned] = []
        if let maxAge = retention.maxAge {
            doomed += try connection.query(
                """
                SELECT address, id FROM mail_messages WHERE \(condition) AND received_at < ?
                ORDER BY received_seq LIMIT ?
                """, bindings + [.integer(now - maxAge), .integer(Int64(room))]
            ).compactMap { row in
                guard let address = row.text("address"), let id = row.text("id") else { return nil }
                return MailPruned(address: address, id: id, reason: .age)
            }
        }
        if let maxMessages = retention.maxMessages, doomed.count < room,
            // The newest message past the limit: it and everything older go.
            let cutoff = try connection.query(
                "SELECT received_seq FROM mail_messages WHERE \(condition) ORDER BY received_seq DESC LIMIT 1 OFFSET ?",
                bindings + [.integer(Int64(maxMessages))]
            ).first?.int("received_seq")
        {
            let aged = Set(doomed.map(\.id))
            doomed += try connection.query(
                "SELECT address, id FROM mail_messages WHERE \(condition) AND received_seq <= ? ORDER BY received_seq LIMIT ?",
                bindings + [.integer(cutoff), .integer(Int64(room))]
            ).compactMap { row in
                guard let address = row.text("address"), let id = row.text("id"), !aged.contains(id) else { return nil }
                return MailPruned(address: address, id: id, reason: .count)
            }
            doomed = Array(doomed.prefix(room))
        }
        for message in doomed {
            // The delete every door uses: the change log's triggers record it for its address.
            _ = try connection.run(
                "DELETE FROM mail_messages WHERE address = ? AND id = ?", [.text(message.address), .text(message.id)])
        }
        return doomed
    }
}
