/// Named secrets in the database (`server_secrets`, migration 0008, or a surface's own table of the same
/// shape), so every instance on one database uses the same: the first to ask creates it, every caller gets the
/// one that was kept, however many race.
public struct SharedSecrets: Sendable {
    /// Where the secrets live.
    public let database: any SQLDatabase
    /// The table: `name TEXT PRIMARY KEY, value BLOB` (a constant of ours, never input).
    private let table: StaticString

    /// Secrets of `database` in `table`.
    public init(database: any SQLDatabase, table: StaticString = "server_secrets") {
        self.database = database
        self.table = table
    }

    /// The secret `name`, created from `make()` when there is none yet. Synchronous: asked at start.
    /// - Throws: `StorageError` from the database.
    public func secret(named name: String, make: () -> [UInt8]) throws -> [UInt8] {
        let candidate = make()
        let table = "\(table)"
        return try database.writeSync { connection in
            try connection.run(
                "INSERT INTO \(table) (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                [.text(name), .blob(candidate)])
            guard let kept = try connection.query("SELECT value FROM \(table) WHERE name = ?", [.text(name)])
                .first?.blob("value")
            else { throw StorageError(.notFound, "secret \(name) vanished after its insert") }
            return kept
        }
    }
}
