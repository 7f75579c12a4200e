import Storage

extension OutboundQueue {
    /// Bytes of the messages `sender` submitted that are still kept for the queue (`outbound_contents`, deleted once
    /// no recipient of the submission is queued).
    public func queuedBytes(sender: String) async throws -> Int64 {
        try await database.read { connection in
            try connection.query(
                """
                SELECT COALESCE(SUM(LENGTH(c.content)), 0) AS n FROM outbound_contents c
                JOIN outbound_submissions s ON s.id = c.submission_id WHERE s.sender = ?
                """, [.text(sender)]
            ).first?.int("n") ?? 0
        }
    }
}
