import Foundation
import MIME
import MailExtraction
import Storage

/// Each message's one-time codes and links with their kinds (issue 85, `mail_extractions`, migration 0068): written
/// with the message in the transaction that stores it, read by every door the same way, and for a message stored
/// before the migration (or by a release before it, during a rolling upgrade) filled by ``extractMissing(batch:)``.
extension MailStore {
    /// What ``extractMissing(batch:)`` did: the messages it gave an extraction, and how many still have none.
    public struct ExtractionBackfill: Sendable, Equatable {
        public var filled: Int
        public var remaining: Int
    }

    /// The extraction of message `id` of `address`; nil when `address` has no such message or the message was stored
    /// before extraction and has not been filled yet.
    public func extraction(address: String, id: String) async throws -> MessageExtraction? {
        try await extractions(in: .address(address), ids: [id])[id]
    }

    /// The extractions of the messages of `ids` that `scope` holds, by id; a message without one is left out.
    public func extractions(in scope: MailScope, ids: [String]) async throws -> [String: MessageExtraction] {
        let ids = Array(Set(ids))
        guard !ids.isEmpty else { return [:] }
        let (place, placeValues) = scope.condition
        return try await database.read { connection in
            var found: [String: MessageExtraction] = [:]
            for chunk in Self.chunks(ids) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                for row in try connection.query(
                    """
                    SELECT e.message_id, e.extraction FROM mail_extractions e
                        JOIN mail_messages ON mail_messages.id = e.message_id
                        WHERE e.message_id IN (\(marks)) AND \(place)
                    """, chunk.map(SQLValue.text) + placeValues)
                {
                    if let id = row.text("message_id"), let extraction = Self.extraction(row.text("extraction")) {
                        found[id] = extraction
                    }
                }
            }
            return found
        }
    }

    /// Gives at most `batch` of the oldest messages that have no extraction one, each read from its raw bytes (with
    /// the default ``ExtractionLimits``; a message its parser refuses gets an empty one, so that it is not read
    /// again), and says how many are left: run it until `remaining` is 0. Resumable: a stopped run loses nothing,
    /// and the next picks up the messages still without one. Each filled address's waiters are woken.
    public func extractMissing(batch: Int = 100) async throws -> ExtractionBackfill {
        let missing = "NOT EXISTS (SELECT 1 FROM mail_extractions e WHERE e.message_id = mail_messages.id)"
        let ids = try await database.read { connection in
            try connection.query(
                "SELECT id FROM mail_messages WHERE \(missing) ORDER BY received_seq LIMIT ?",
                [.integer(Int64(max(1, batch)))]
            ).compactMap { $0.text("id") }
        }
        var found: [(id: String, extraction: MessageExtraction)] = []
        for id in ids {
            // One raw message at a time: a batch of large messages is never held at once.
            let raw = try await database.read { connection in
                try connection.query("SELECT raw FROM mail_messages WHERE id = ?", [.text(id)]).first?.blob("raw")
            }
            guard let raw else { continue }  // deleted since
            let limits = MIMELimits(maximumMessageBytes: max(raw.count, 1))
            found.append((id, MessageExtraction.extract(raw: raw, mimeLimits: limits)))
        }
        let computed = found
        let addresses = try await database.write { connection in
            try connection.transaction {
                var addresses: Set<String> = []
                for (id, extraction) in computed {
                    // The message may have gone since it was read: then there is nothing to write.
                    guard
                        let address = try connection.query(
                            "SELECT address FROM mail_messages WHERE id = ?", [.text(id)]
                        ).first?.text("address")
                    else { continue }
                    try Self.insertExtraction(extraction, id: id, ifMissing: true, connection)
                    addresses.insert(address)
                }
                return addresses
            }
        }
        changes.announce(Array(addresses))
        let remaining = try await database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM mail_messages WHERE \(missing)", []).first?.int("n") ?? 0
        }
        return ExtractionBackfill(filled: found.count, remaining: Int(remaining))
    }

    /// Writes `extraction` as message `id`'s on `connection`, in the caller's transaction; with `ifMissing`, leaves
    /// one already there (a backfill racing a second).
    static func insertExtraction(
        _ extraction: MessageExtraction, id: String, ifMissing: Bool = false, _ connection: any SQLConnection
    ) throws {
        _ = try connection.run(
            """
            INSERT INTO mail_extractions (message_id, best_code, link_kinds, extraction) VALUES (?, ?, ?, ?)
            \(ifMissing ? "ON CONFLICT (message_id) DO NOTHING" : "")
            """,
            [
                .text(id), optional(extraction.codes.first?.value), .text(linkKindsColumn(extraction.links)),
                .text(json(extraction)),
            ])
    }

    /// The `link_kinds` column's text: each kind the links have, once, in ``LinkKind``'s order, framed by spaces
    /// (`' verify other '`), so that a kind is matched whole by `LIKE '% verify %'`.
    static func linkKindsColumn(_ links: [ExtractedLink]) -> String {
        let kinds = Set(links.map(\.kind))
        return " " + LinkKind.allCases.filter(kinds.contains).map(\.rawValue).joined(separator: " ") + " "
    }

    static func extraction(_ text: String?) -> MessageExtraction? {
        text.flatMap { try? JSONDecoder().decode(MessageExtraction.self, from: Data($0.utf8)) }
    }
}
