import Storage

/// The open sockets of mail.cx's `/api/ws`, per account, across instances (`mailbox_sockets`).
extension MailboxStore {
    /// Records socket `id` for `accountID` until `expiresAt` when fewer than `limit` live ones are recorded for it;
    /// false (nothing written) when `limit` are. The count and the insert share one write transaction, so two
    /// instances cannot both take the last place; rows past their expiry (an instance that died) are dropped first.
    func claimSocket(id: String, accountID: String, now: Int64, expiresAt: Int64, limit: Int) async throws -> Bool {
        try await database.write { connection in
            try connection.transaction {
                try connection.run(
                    "DELETE FROM mailbox_sockets WHERE account_id = ? AND expires_at <= ?",
                    [.text(accountID), .integer(now)])
                let open =
                    try connection.query(
                        "SELECT COUNT(*) AS n FROM mailbox_sockets WHERE account_id = ?", [.text(accountID)]
                    ).first?.int("n") ?? 0
                guard open < Int64(limit) else { return false }
                try connection.run(
                    "INSERT INTO mailbox_sockets (id, account_id, expires_at) VALUES (?, ?, ?)",
                    [.text(id), .text(accountID), .integer(expiresAt)])
                return true
            }
        }
    }

    /// Pushes socket `id`'s expiry on (it is still open).
    func refreshSocket(id: String, expiresAt: Int64) async throws {
        try await database.write { connection in
            _ = try connection.run(
                "UPDATE mailbox_sockets SET expires_at = ? WHERE id = ?", [.integer(expiresAt), .text(id)])
        }
    }

    /// Forgets socket `id` (it closed).
    func releaseSocket(id: String) async throws {
        try await database.write { connection in
            _ = try connection.run("DELETE FROM mailbox_sockets WHERE id = ?", [.text(id)])
        }
    }
}
