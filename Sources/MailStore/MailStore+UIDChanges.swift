import Storage

/// What changed in one mailbox between two states of its address, read from the change log (migration 0015's
/// triggers write one row per state): the mailbox as numbered now, the ids of the messages a change touched in it, and
/// the entries of those of them that are in it now. Made for IMAP's look after a change, which was a read of every
/// message's UID and flags: a change elsewhere (a folder made, mail to another folder) or to a few messages now costs a
/// read of the log and of those few.
public struct MailUIDChanges: Sendable, Equatable {
    public var mailbox: MailUIDMailbox
    /// The messages a change touched here: in the mailbox before it, after it, or both.
    public var touched: Set<String>
    /// The messages of `touched` in the mailbox now, in UID order.
    public var entries: [MailUIDEntry]

    public init(mailbox: MailUIDMailbox, touched: Set<String>, entries: [MailUIDEntry]) {
        self.mailbox = mailbox
        self.touched = touched
        self.entries = entries
    }

    /// `entries`, a mailbox's messages in UID order as of the first state, brought to the second: the touched ones
    /// taken out, those of them there now put back in their UID's place (a moved or renumbered one has a new UID).
    public func applied(to entries: [MailUIDEntry]) -> [MailUIDEntry] {
        guard !touched.isEmpty else { return entries }
        var merged: [MailUIDEntry] = []
        merged.reserveCapacity(entries.count + self.entries.count)
        var next = self.entries.startIndex
        for entry in entries where !touched.contains(entry.id) {
            while next < self.entries.endIndex, self.entries[next].uid < entry.uid {
                merged.append(self.entries[next])
                next += 1
            }
            merged.append(entry)
        }
        merged.append(contentsOf: self.entries[next...])
        return merged
    }
}

extension MailStore {
    /// What changed in `folder` of `address` from state `since` to state `to` (``MailUIDChanges``), in one read; nil
    /// when the log cannot say it: some of its rows were trimmed (fewer rows than states), more than `atMost` changes,
    /// the folder itself was made, renamed or deleted, or it was never numbered. The caller then reads the mailbox
    /// whole (``uidSnapshot(address:folder:now:)``).
    public func uidChanges(address: String, folder: MailFolder, since: Int64, to state: Int64, atMost: Int)
        async throws -> MailUIDChanges?
    {
        guard state >= since, state - since <= Int64(atMost) else { return nil }
        let mailboxValues: [SQLValue] = [.text(address), .text(folder.rawValue)]
        return try await database.read { connection in
            try connection.readTransaction { () throws -> MailUIDChanges? in
                let changes = try connection.query(
                    """
                    SELECT message_id, kind, folder_before, folder_after FROM mail_changes
                        WHERE address = ? AND seq > ? AND seq <= ?
                    """, [.text(address), .integer(since), .integer(state)])
                guard Int64(changes.count) == state - since else { return nil }
                var touched: Set<String> = []
                for change in changes where change.text("folder_before") == folder.rawValue
                    || change.text("folder_after") == folder.rawValue
                {
                    guard let id = change.text("message_id"), change.text("kind")?.hasPrefix("mailbox-") == false
                    else { return nil }
                    touched.insert(id)
                }
                guard let row = try connection.query(
                    "SELECT uid_validity, uid_next FROM mail_uid_mailboxes WHERE address = ? AND folder = ?",
                    mailboxValues
                ).first else { return nil }
                let marks = Array(repeating: "?", count: touched.count).joined(separator: ", ")
                let entries = touched.isEmpty ? [] : try connection.query(
                    Self.uidEntries + " AND u.message_id IN (\(marks)) ORDER BY u.uid",
                    mailboxValues + touched.map(SQLValue.text)
                ).compactMap(Self.uidEntry)
                return MailUIDChanges(
                    mailbox: Self.uidMailbox(row, last: entries.last), touched: touched, entries: entries)
            }
        }
    }
}
