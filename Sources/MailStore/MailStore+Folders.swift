import Storage

/// Folders (decision 35, `migrations/*/0076_mail_folders.sql`): an address's tree, making, renaming and deleting a
/// folder, and its subscriptions, for every door. Each verb is one transaction; the triggers of 0076 write each
/// folder's change to the change log in it, and the address's waiters hear of it after the commit.
extension MailStore {
    /// `address`'s folders: the six fixed ones and those it made.
    public func folders(address: String) async throws -> MailFolderTree {
        try await database.read { try Self.tree(address, $0) }
    }

    /// Makes the folder at `path` (names from the top down), and any folder above it that is missing (RFC 9051
    /// §6.3.4); returns its key. Its UIDVALIDITY is numbered now, above any the address had.
    /// - Throws: ``MailFolderError/exists`` when the folder is there already, ``MailFolderError/name`` or
    ///   ``MailFolderError/limit(_:)`` (nothing made).
    public func createFolder(address: String, path: [String], now: Int64) async throws -> MailFolder {
        let folder = try await database.write { connection in
            try connection.transaction {
                let tree = try Self.tree(address, connection)
                guard tree.folder(at: path) == nil else { throw MailFolderError.exists }
                return try makePath(path, address: address, tree: tree, now: now, connection)
            }
        }
        changes.announce([address])
        return folder
    }

    /// Makes a folder named `name` under `parent` (nil: at the top), JMAP's `Mailbox/set` create; returns its key.
    /// - Throws: ``MailFolderError/noSuchFolder`` (no such parent), ``MailFolderError/exists``,
    ///   ``MailFolderError/name``, ``MailFolderError/limit(_:)`` (nothing made).
    public func createFolder(address: String, name: String, parent: MailFolder?, now: Int64) async throws
        -> MailFolder
    {
        let folder = try await database.write { connection in
            try connection.transaction {
                let tree = try Self.tree(address, connection)
                var above: [String] = []
                if let parent {
                    guard let path = tree.path(of: parent) else { throw MailFolderError.noSuchFolder }
                    above = path
                }
                guard tree.folder(at: above + [name]) == nil else { throw MailFolderError.exists }
                return try makePath(above + [name], address: address, tree: tree, now: now, connection)
            }
        }
        changes.announce([address])
        return folder
    }

    /// Renames the folder at `from` to the path `to`, making any folder above `to` that is missing; the folders under
    /// it go with it, every message stays where it is (with its UID), and subscriptions to its names follow it.
    /// - Throws: ``MailFolderError/noSuchFolder``, ``MailFolderError/fixed``, ``MailFolderError/exists``,
    ///   ``MailFolderError/underItself``, ``MailFolderError/name``, ``MailFolderError/limit(_:)``.
    public func renameFolder(address: String, from: [String], to: [String], now: Int64) async throws {
        try await database.write { connection in
            try connection.transaction {
                var tree = try Self.tree(address, connection)
                guard let folder = tree.folder(at: from) else { throw MailFolderError.noSuchFolder }
                guard !folder.isFixed else { throw MailFolderError.fixed }
                guard tree.folder(at: to) == nil else { throw MailFolderError.exists }
                guard let name = to.last else { throw MailFolderError.name }
                let above = Array(to.dropLast())
                if above.starts(with: from) || tree.folder(at: above).map({ tree.isWithin($0, folder) }) == true {
                    throw MailFolderError.underItself
                }
                var parent: MailFolder?
                if !above.isEmpty {
                    parent = try tree.folder(at: above)
                        ?? makePath(above, address: address, tree: tree, now: now, connection)
                    tree = try Self.tree(address, connection)
                }
                try move(folder, to: name, under: parent, address: address, tree: tree, connection)
            }
        }
        changes.announce([address])
    }

    /// Gives `folder` the name `name` under `parent` (nil: at the top), JMAP's `Mailbox/set` update.
    /// - Throws: as ``renameFolder(address:from:to:now:)``; ``MailFolderError/noSuchFolder`` for a missing parent too.
    public func renameFolder(address: String, _ folder: MailFolder, name: String, parent: MailFolder?) async throws {
        try await database.write { connection in
            try connection.transaction {
                let tree = try Self.tree(address, connection)
                guard tree.entry(folder) != nil, parent.map({ tree.entry($0) != nil }) ?? true else {
                    throw MailFolderError.noSuchFolder
                }
                guard !folder.isFixed else { throw MailFolderError.fixed }
                if let parent, tree.isWithin(parent, folder) { throw MailFolderError.underItself }
                if let there = tree.child(named: name, of: parent), there != folder { throw MailFolderError.exists }
                try move(folder, to: name, under: parent, address: address, tree: tree, connection)
            }
        }
        changes.announce([address])
    }

    /// Sets where a client sorts `folder` (JMAP's `sortOrder`), a folder `address` made; the change is the folder's
    /// in the change log: the statement names `name` too, so 0076's update trigger writes it (migration 0082).
    /// - Throws: ``MailFolderError/noSuchFolder``, ``MailFolderError/fixed`` (the server orders the six).
    public func setSortOrder(address: String, _ folder: MailFolder, _ sortOrder: Int) async throws {
        guard !folder.isFixed else { throw MailFolderError.fixed }
        let changed = try await database.write { connection in
            try connection.run(
                "UPDATE mail_folders SET sort_order = ?, name = name WHERE address = ? AND id = ?",
                [.integer(Int64(sortOrder)), .text(address), .text(folder.rawValue)])
        }
        guard changed > 0 else { throw MailFolderError.noSuchFolder }
        changes.announce([address])
    }

    /// Deletes `folder`, which must have no folder under it; its messages go with it when `removingMessages`, else
    /// a folder holding any is refused. Returns how many messages went. Its subscription stays (RFC 5258: a
    /// subscription names a name).
    /// - Throws: ``MailFolderError/noSuchFolder``, ``MailFolderError/fixed``,
    ///   ``MailFolderError/hasChildren``, ``MailFolderError/notEmpty`` (nothing deleted).
    @discardableResult
    public func deleteFolder(address: String, _ folder: MailFolder, removingMessages: Bool) async throws -> Int {
        let removed = try await database.write { connection in
            try connection.transaction {
                let tree = try Self.tree(address, connection)
                guard tree.entry(folder) != nil else { throw MailFolderError.noSuchFolder }
                guard !folder.isFixed else { throw MailFolderError.fixed }
                guard tree.children(of: folder).isEmpty else { throw MailFolderError.hasChildren }
                let values: [SQLValue] = [.text(address), .text(folder.rawValue)]
                if !removingMessages {
                    let held = try connection.query(
                        "SELECT COUNT(*) AS n FROM mail_messages WHERE address = ? AND folder = ?", values
                    ).first?.int("n") ?? 0
                    guard held == 0 else { throw MailFolderError.notEmpty }
                }
                let removed = try connection.run("DELETE FROM mail_messages WHERE address = ? AND folder = ?", values)
                try connection.run("DELETE FROM mail_folders WHERE address = ? AND id = ?", values)
                // Its mail_uid_mailboxes row stays: the highest UIDVALIDITY the address gave must not go down, or a
                // folder made again under its name could answer its UIDVALIDITY.
                try connection.run("DELETE FROM mail_recent_uids WHERE address = ? AND folder = ?", values)
                return removed
            }
        }
        changes.announce([address])
        return removed
    }

    /// The names (full paths) `address` subscribed to, besides the six fixed folders, which always are.
    public func subscriptions(address: String) async throws -> Set<String> {
        try await database.read { connection in
            Set(
                try connection.query(
                    "SELECT name FROM mail_folder_subscriptions WHERE address = ?", [.text(address)]
                ).compactMap { $0.text("name") })
        }
    }

    /// Subscribes `address` to `path` (a name, whether or not a folder has it: RFC 9051 §6.3.7) or unsubscribes it.
    /// When that changes a subscription and a made folder has the name, the change is the folder's (JMAP's
    /// `isSubscribed`): its row is written again in the same transaction, so 0076's update trigger advances the state
    /// and logs it as `mailbox-updated`, as a rename is, and the address's waiters hear of it after the commit.
    public func setSubscribed(address: String, path: [String], _ subscribed: Bool) async throws {
        let name = MailFolderTree.fullName(path)
        let sql = subscribed
            ? "INSERT INTO mail_folder_subscriptions (address, name) VALUES (?, ?) ON CONFLICT DO NOTHING"
            : "DELETE FROM mail_folder_subscriptions WHERE address = ? AND name = ?"
        let changedFolder = try await database.write { connection in
            try connection.transaction {
                guard try connection.run(sql, [.text(address), .text(name)]) > 0,
                    let folder = try Self.tree(address, connection).folder(at: path), !folder.isFixed
                else { return false }
                // Setting `name` to itself fires `AFTER UPDATE OF name` on SQLite and PostgreSQL alike.
                try connection.run(
                    "UPDATE mail_folders SET name = name WHERE address = ? AND id = ?",
                    [.text(address), .text(folder.rawValue)])
                return true
            }
        }
        if changedFolder { changes.announce([address]) }
    }

    /// Refuses a write to `folder` that `address` does not have (a made folder deleted meanwhile); the six fixed
    /// folders are always there, asked nothing.
    /// - Throws: ``MailFolderError/noSuchFolder``.
    static func checkFolder(_ address: String, _ folder: MailFolder, _ connection: any SQLConnection) throws {
        guard !folder.isFixed else { return }
        guard try connection.query(
            "SELECT 1 AS one FROM mail_folders WHERE address = ? AND id = ?", [.text(address), .text(folder.rawValue)]
        ).first != nil else { throw MailFolderError.noSuchFolder }
    }

    static func tree(_ address: String, _ connection: any SQLConnection) throws -> MailFolderTree {
        MailFolderTree(
            made: try connection.query(
                "SELECT id, name, parent_id, sort_order FROM mail_folders WHERE address = ?", [.text(address)]
            ).compactMap { row in
                guard let folder = row.text("id").flatMap(MailFolder.init(rawValue:)), let name = row.text("name")
                else { return nil }
                return MailFolderEntry(
                    folder: folder, name: name, parent: row.text("parent_id").flatMap(MailFolder.init(rawValue:)),
                    sortOrder: row.int("sort_order").map { Int($0) } ?? MailFolderEntry.defaultSortOrder)
            })
    }

    /// Makes each missing folder of `path` in the caller's transaction; returns the last one's key.
    private func makePath(
        _ path: [String], address: String, tree: MailFolderTree, now: Int64, _ connection: any SQLConnection
    ) throws -> MailFolder {
        guard !path.isEmpty else { throw MailFolderError.name }
        guard path.count <= folderLimits.maxDepth else { throw MailFolderError.limit(.depth) }
        for name in path { try folderLimits.check(name: name) }
        var parent: MailFolder?
        var made = tree.entries.count - MailFolder.fixed.count
        for name in path {
            if let found = tree.child(named: name, of: parent) {
                parent = found
                continue
            }
            made += 1
            guard made <= folderLimits.maxFolders else { throw MailFolderError.limit(.count) }
            let folder = MailFolder.made()
            try connection.run(
                "INSERT INTO mail_folders (address, id, name, parent_id, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(address), .text(folder.rawValue), .text(name), .text(parent?.rawValue ?? ""), .integer(now)])
            // Numbered now, one above the address's highest: a folder made again under a deleted one's name never
            // answers its UIDVALIDITY, even within the second (RFC 9051 §2.3.1.1).
            let highest = try connection.query(
                "SELECT MAX(uid_validity) AS v FROM mail_uid_mailboxes WHERE address = ?", [.text(address)]
            ).first?.int("v") ?? 0
            try connection.run(
                "INSERT INTO mail_uid_mailboxes (address, folder, uid_validity, uid_next) VALUES (?, ?, ?, 1)",
                [.text(address), .text(folder.rawValue), .integer(Swift.min(Swift.max(now, highest + 1), Int64(UInt32.max)))])
            parent = folder
        }
        guard let parent else { throw MailFolderError.name }
        return parent
    }

    /// Writes `folder`'s new name and parent and moves the subscriptions to its names, in the caller's transaction.
    private func move(
        _ folder: MailFolder, to name: String, under parent: MailFolder?, address: String, tree: MailFolderTree,
        _ connection: any SQLConnection
    ) throws {
        try folderLimits.check(name: name)
        guard let old = tree.path(of: folder) else { throw MailFolderError.noSuchFolder }
        let new = (parent.flatMap(tree.path(of:)) ?? []) + [name]
        let depth = tree.entries.filter { tree.isWithin($0.folder, folder) }.compactMap { tree.path(of: $0.folder)?.count }
            .max() ?? old.count
        guard depth - old.count + new.count <= folderLimits.maxDepth else { throw MailFolderError.limit(.depth) }
        try connection.run(
            "UPDATE mail_folders SET name = ?, parent_id = ? WHERE address = ? AND id = ?",
            [.text(name), .text(parent?.rawValue ?? ""), .text(address), .text(folder.rawValue)])
        let separator = String(MailFolderTree.delimiter)
        let (oldName, newName) = (MailFolderTree.fullName(old), MailFolderTree.fullName(new))
        for row in try connection.query(
            "SELECT name FROM mail_folder_subscriptions WHERE address = ?", [.text(address)])
        {
            guard let subscribed = row.text("name"), subscribed == oldName || subscribed.hasPrefix(oldName + separator)
            else { continue }
            let renamed = newName + subscribed.dropFirst(oldName.count)
            try connection.run(
                "DELETE FROM mail_folder_subscriptions WHERE address = ? AND name = ?", [.text(address), .text(subscribed)])
            try connection.run(
                "INSERT INTO mail_folder_subscriptions (address, name) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [.text(address), .text(renamed)])
        }
    }
}
