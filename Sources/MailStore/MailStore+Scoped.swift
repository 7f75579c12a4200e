import Storage

/// Reads and writes over a ``MailScope`` with a ``MailFilter`` beside the three verbs (``MailStore/list(_:)``,
/// ``MailStore/mark(_:read:)``, ``MailStore/delete(_:)``): the store-wide view Mailpit's API gives (issue 71), for the
/// operator (every address) or for one Pro user's sandbox (its address). Every write here moves each touched
/// address's JMAP state through the change log's triggers and wakes that address's waiters after the commit, as
/// any other write of the store does.
extension MailStore {
    /// How many messages of `scope` pass `filter`, and how many of those are unread.
    public func counts(in scope: MailScope, matching filter: MailFilter) async throws -> (total: Int, unread: Int) {
        let (condition, values) = Self.scoped(scope, filter, database.dialect)
        return try await database.read { connection in
            let row = try connection.query(
                """
                SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN is_read = 0 THEN 1 ELSE 0 END), 0) AS unread
                    FROM mail_messages WHERE \(condition)
                """, values
            ).first
            return (Int(row?.int("total") ?? 0), Int(row?.int("unread") ?? 0))
        }
    }

    /// Message `id` with every parsed field when `scope` holds it; nil otherwise.
    public func record(in scope: MailScope, id: String) async throws -> MailMessageRecord? {
        guard let address = try await address(ofMessage: id), Self.covers(scope, address) else { return nil }
        return try await message(address: address, id: id)
    }

    /// The raw bytes of message `id` when `scope` holds it; nil otherwise.
    public func raw(in scope: MailScope, id: String) async throws -> [UInt8]? {
        guard let address = try await address(ofMessage: id), Self.covers(scope, address) else { return nil }
        return try await raw(address: address, id: id)
    }

    /// Attachment `position` of message `id` when `scope` holds it: its description and decoded bytes.
    public func attachment(in scope: MailScope, id: String, position: Int) async throws
        -> (MailAttachmentInfo, [UInt8])?
    {
        guard let address = try await address(ofMessage: id), Self.covers(scope, address) else { return nil }
        return try await attachment(address: address, id: id, position: position)
    }

    /// How many messages of `scope` carry each keyword (`$seen` is not a stored keyword: read status is its own).
    public func keywordCounts(in scope: MailScope) async throws -> [String: Int] {
        let (condition, values) = scope.condition
        return try await database.read { try Self.keywordCounts(where: condition, values, $0) }
    }

    /// How many of the messages that `condition` (with `values`) selects carry each keyword, on `connection`.
    static func keywordCounts(where condition: String, _ values: [SQLValue], _ connection: any SQLConnection) throws
        -> [String: Int]
    {
        var counts: [String: Int] = [:]
        for row in try connection.query(
            "SELECT keywords FROM mail_messages WHERE \(condition) AND keywords <> '{}'", values)
        {
            for keyword in keywords(row.text("keywords")) { counts[keyword, default: 0] += 1 }
        }
        return counts
    }

    /// Rewrites the keywords of the messages of `scope` that pass `filter` with `transform` (given and giving every
    /// stored keyword, `$seen` aside); returns the ids whose keywords changed.
    /// - Throws: ``MailStoreError/keywordLimit(_:)`` when a message's or an address's keywords would pass a cap
    ///   (nothing changed).
    public func rewriteKeywords(
        in scope: MailScope, matching filter: MailFilter,
        _ transform: @escaping @Sendable (Set<String>) -> Set<String>
    ) async throws -> [String] {
        let (condition, values) = Self.scoped(scope, filter, database.dialect)
        let changed = try await database.write { connection in
            try connection.transaction {
                var rewrites: [(id: String, address: String, keywords: Set<String>)] = []
                var added: [String: Set<String>] = [:]
                for row in try connection.query(
                    "SELECT id, address, keywords FROM mail_messages WHERE \(condition)", values)
                {
                    guard let id = row.text("id"), let address = row.text("address") else { continue }
                    let before = Set(Self.keywords(row.text("keywords")))
                    let after = transform(before).subtracting(["$seen"])
                    guard after != before else { continue }
                    if let limit = keywordLimits.violation(before: before, after: after) {
                        throw MailStoreError.keywordLimit(limit)
                    }
                    added[address, default: []].formUnion(MailKeywordLimits.counted(after).subtracting(before))
                    rewrites.append((id, address, after))
                }
                for (address, keywords) in added where !keywords.isEmpty {
                    let known = try Self.addressKeywords(address, connection)
                    if let limit = keywordLimits.violation(adding: keywords, toAddressWith: known) {
                        throw MailStoreError.keywordLimit(limit)
                    }
                }
                for rewrite in rewrites {
                    _ = try connection.run(
                        "UPDATE mail_messages SET keywords = ? WHERE id = ?",
                        [.text(Self.keywordsJSON(rewrite.keywords)), .text(rewrite.id)])
                }
                return (rewrites.map(\.id), Set(rewrites.map(\.address)))
            }
        }
        changes.announce(Array(changed.1))
        return changed.0
    }

    /// The condition of `scope` and `filter` together, with their values.
    static func scoped(_ scope: MailScope, _ filter: MailFilter, _ dialect: SQLDialect) -> (String, [SQLValue]) {
        let (place, placeValues) = scope.condition
        let (passes, passValues) = filter.sql(dialect)
        return ("\(place) AND \(passes)", placeValues + passValues)
    }

    static func covers(_ scope: MailScope, _ address: String) -> Bool {
        switch scope {
        case .everyAddress: return true
        case .address: return scope.condition.1 == [.text(address)]
        }
    }

    /// `ids` in runs short enough for one statement's bound values on both backends.
    static func chunks(_ ids: [String], size: Int = 500) -> [[String]] {
        stride(from: 0, to: ids.count, by: size).map { Array(ids[$0..<min($0 + size, ids.count)]) }
    }
}
