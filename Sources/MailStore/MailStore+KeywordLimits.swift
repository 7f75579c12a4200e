import Storage

/// The check every keyword write of the store makes before it writes (``MailKeywordLimits``), inside the writing
/// transaction, so that no door's write passes a cap.
extension MailStore {
    /// Throws ``MailStoreError/keywordLimit(_:)`` when setting `writes` in `address`'s mail passes one of
    /// ``keywordLimits``: each write's message (nil for a message not stored yet) and its keywords after the write.
    ///
    /// Free for a write with no counted keyword (a delivery, `$seen`, the system flags). Otherwise the messages'
    /// stored keywords are read, so that only what is added is checked, and when something is added, the keywords
    /// of the address's mail.
    func checkKeywords(
        _ address: String, _ writes: [(id: String?, keywords: Set<String>)], _ connection: any SQLConnection
    ) throws {
        let counting = writes.filter { !MailKeywordLimits.counted($0.keywords).isEmpty }
        guard !counting.isEmpty else { return }
        let stored = try Self.storedKeywords(address, ids: counting.compactMap(\.id), connection)
        var added: Set<String> = []
        for write in counting {
            let before = write.id.flatMap { stored[$0] } ?? []
            if let limit = keywordLimits.violation(before: before, after: write.keywords) {
                throw MailStoreError.keywordLimit(limit)
            }
            added.formUnion(MailKeywordLimits.counted(write.keywords).subtracting(before))
        }
        guard !added.isEmpty else { return }
        let known = try Self.addressKeywords(address, connection)
        if let limit = keywordLimits.violation(adding: added, toAddressWith: known) {
            throw MailStoreError.keywordLimit(limit)
        }
    }

    /// The stored keywords of the messages `ids` of `address`, by id, in batches of 500: by id alone, the address
    /// checked here, as ``raws(address:ids:)`` reads (SQLite's planner would otherwise walk the address's index).
    static func storedKeywords(_ address: String, ids: [String], _ connection: any SQLConnection) throws
        -> [String: Set<String>]
    {
        var found: [String: Set<String>] = [:]
        for batch in chunks(ids) {
            let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            for row in try connection.query(
                "SELECT id, address, keywords FROM mail_messages WHERE id IN (\(marks))", batch.map(SQLValue.text))
            {
                if let id = row.text("id"), row.text("address") == address {
                    found[id] = Set(keywords(row.text("keywords")))
                }
            }
        }
        return found
    }

    /// Every distinct keyword of `address`'s mail.
    static func addressKeywords(_ address: String, _ connection: any SQLConnection) throws -> Set<String> {
        Set(try keywordCounts(where: "address = ?", [.text(address)], connection).keys)
    }
}
