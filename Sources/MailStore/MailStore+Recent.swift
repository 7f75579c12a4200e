import Storage

/// IMAP4rev1's `\Recent` (RFC 3501 §2.3.2) over the one store (migration 0064): per mailbox, the highest UID a
/// session has been told is recent. A message is recent in exactly one session: the one that claims it.
extension MailStore {
    /// The highest UID of `address`'s `folder` that some session has been told is recent; 0 when none has been. What
    /// lies above it is recent to whoever claims it next (`EXAMINE` and `STATUS` count it without claiming).
    public func recentUID(address: String, folder: MailFolder) async throws -> UInt32 {
        try await database.read { connection in
            try Self.recentUID([.text(address), .text(folder.rawValue)], connection: connection)
        }
    }

    /// Claims for the calling session the UIDs of `address`'s `folder` above the highest already claimed, up to
    /// `uid` (the largest the session knows), and returns them; nil when another session claimed them all first.
    ///
    /// One transaction reads and raises the mark, so of two sessions claiming at once (on one instance or, over
    /// PostgreSQL, on two) each UID goes to one: SQLite has one writer, and PostgreSQL's SERIALIZABLE transaction
    /// fails the second to commit and runs it again, when it reads the first's mark.
    public func claimRecent(address: String, folder: MailFolder, through uid: UInt32) async throws
        -> ClosedRange<UInt32>?
    {
        let values: [SQLValue] = [.text(address), .text(folder.rawValue)]
        return try await database.write { connection in
            try connection.transaction {
                let claimed = try Self.recentUID(values, connection: connection)
                guard claimed < uid else { return nil }
                try connection.run(
                    """
                    INSERT INTO mail_recent_uids (address, folder, recent_uid) VALUES (?, ?, ?)
                        ON CONFLICT (address, folder) DO UPDATE SET recent_uid = excluded.recent_uid
                    """, values + [.integer(Int64(uid))])
                return (claimed + 1)...uid
            }
        }
    }

    static func recentUID(_ values: [SQLValue], connection: any SQLConnection) throws -> UInt32 {
        let row = try connection.query(
            "SELECT recent_uid FROM mail_recent_uids WHERE address = ? AND folder = ?", values
        ).first
        return UInt32(clamping: row?.int("recent_uid") ?? 0)
    }
}
