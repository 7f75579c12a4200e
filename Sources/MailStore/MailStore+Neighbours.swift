import Storage

/// What other targets ask of the mail tables inside their own statements and transactions (issue 52: the mail tables
/// are named in SQL by this target alone). Each runs on the caller's connection, or is an expression inside the
/// caller's statement, so that what it reads or deletes is part of the caller's transaction or statement, as the
/// caller's own SQL on these tables was.
extension MailStore {
    /// Deletes everything stored under `address`: its messages (their attachments go with them), its change log, its
    /// state and the blobs it uploaded, as a mailbox account's deletion does (migration 0022), so that a later inbox of
    /// the same address starts empty, from state 0. Runs on `connection`, inside the caller's transaction.
    /// - Warning: nothing is announced: once the caller's transaction commits, waiters on the address learn of it at
    ///   their next look (or call ``MailChanges/announce(_:)``).
    /// - Throws: storage errors.
    public static func deleteMailbox(_ address: String, _ connection: any SQLConnection) throws {
        let address: [SQLValue] = [.text(address)]
        try connection.run("DELETE FROM mail_messages WHERE address = ?", address)
        try connection.run("DELETE FROM mail_changes WHERE address = ?", address)
        try connection.run("DELETE FROM mail_state WHERE address = ?", address)
        try connection.run("DELETE FROM mail_blobs WHERE address = ?", address)
    }

    /// The bytes of mail held for the address in `column` (the sum of its messages' sizes, 0 for none; uploaded blobs
    /// not counted), as an SQL expression another target's query selects, so that a row and its mail's size are read
    /// by one statement (the Mail.td account's `used`, read on every request it authorizes).
    /// - Parameter column: a column of the caller's query holding a lower-cased address; never client text.
    public static func messageBytes(ofAddressIn column: String) -> String {
        "(SELECT COALESCE(SUM(size), 0) FROM mail_messages WHERE mail_messages.address = \(column))"
    }

    /// How many messages the outbox holds (outside mail that is never sent), read on `connection`.
    /// - Throws: storage errors.
    public static func outboxCount(_ connection: any SQLConnection) throws -> Int64 {
        try connection.query("SELECT count(*) AS n FROM mail_outbox", []).first?.int("n") ?? 0
    }
}
