import Storage

extension StorageBackend {
    /// A new, migrated database of this backend holding two owners (`o-ada`, `o-bob`, emails `<id>@example.com`) and
    /// one Mail.td Pro user (`u-pro`, `pro@example.com`): the people whose rows the shared models (custom domain
    /// claims, passkeys) hang off.
    public func makeDatabaseWithHolders() throws -> TestDatabase {
        let test = try makeDatabase()
        try test.database.writeSync { connection in
            for id in ["o-ada", "o-bob"] {
                try connection.run(
                    "INSERT INTO owners (id, email, password_hash, created_at) VALUES (?, ?, '', 0)",
                    [.text(id), .text(id + "@example.com")])
            }
            try connection.run(
                """
                INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, max_domains, created_at)
                VALUES ('u-pro', 'pro@example.com', '', 5, 5, 0)
                """, [])
        }
        return test
    }
}
