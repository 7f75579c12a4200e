import Storage

/// The store's reads made on the calling thread with a read-only connection that thread owns (issue 84, run to
/// completion): for an IMAP command an event loop answers itself, with no hop to the store's reader queue and none
/// back. Only on SQLite, whose point read of a WAL file waits for no writer; PostgreSQL's read is a round trip, which
/// stays on the pool. Each read is the same query as the async one of the same name.
public struct MailCallingThreadRead {
    let connection: any SQLConnection

    /// The address's state (``MailStore/state(address:)``).
    public func state(address: String) throws -> Int64 {
        try MailStore.state(address: address, connection)
    }

    /// The address's state and the stored bytes of `ids` as of that state, in one read transaction
    /// (``MailStore/stateAndRaws(address:ids:)``).
    public func stateAndRaws(address: String, ids: [String]) throws -> (state: Int64, raws: [String: [UInt8]]) {
        try connection.readTransaction {
            (try MailStore.state(address: address, connection), try MailStore.raws(address: address, ids: ids, connection))
        }
    }

    /// The address's folders (``MailStore/folders(address:)``).
    public func folders(address: String) throws -> MailFolderTree {
        try MailStore.tree(address, connection)
    }

    /// `folder` as IMAP numbers it and its messages (``MailStore/uidSnapshot(address:folder:now:)``); nil when the
    /// mailbox was never numbered, whose numbering is a write, or holds more than `limit` messages (a read too long
    /// for the calling thread, an event loop: asked with an `OFFSET`, it stops after `limit` rows of the index).
    public func numberedSnapshot(address: String, folder: MailFolder, atMost limit: Int) throws
        -> (mailbox: MailUIDMailbox, entries: [MailUIDEntry])?
    {
        let values: [SQLValue] = [.text(address), .text(folder.rawValue)]
        let past = try connection.query(
            "SELECT 1 AS past FROM mail_uids WHERE address = ? AND folder = ? LIMIT 1 OFFSET ?",
            values + [.integer(Int64(limit))])
        guard past.isEmpty else { return nil }
        return try MailStore.uidSnapshot(values, connection: connection)
    }

    /// The highest UID of `folder` a session has claimed as recent (``MailStore/recentUID(address:folder:)``).
    public func recentUID(address: String, folder: MailFolder) throws -> UInt32 {
        try MailStore.recentUID([.text(address), .text(folder.rawValue)], connection: connection)
    }
}

extension MailStore {
    /// Whether ``readOnCallingThread(_:)`` reads: the database is SQLite, whose threads each read on a connection of
    /// their own.
    public var readsOnCallingThread: Bool { database.callingThread != nil }

    /// `body` run on the calling thread with its own read-only connection (``ThreadOwnedReading``); nil when the
    /// database has none (PostgreSQL). For threads that live as long as the store, as event loops do.
    /// - Throws: what `body` throws; the storage's errors (`.busy` after a short wait).
    public func readOnCallingThread<T: Sendable>(_ body: (MailCallingThreadRead) throws -> T) throws -> T? {
        guard let database = database.callingThread else { return nil }
        return try database.readOnCallingThread { connection in try body(MailCallingThreadRead(connection: connection)) }
    }
}
