import Foundation

/// Applies numbered migrations in version order, each once, each in its own transaction.
///
/// The migrations are a list (the server's are compiled into the binary from `migrations/<dialect>/*.sql`, see
/// `EmbeddedResources`), so applying them reads nothing from the working directory. Applied migrations
/// are recorded in `schema_migrations(version, name, checksum, applied_at)` with the SHA-256 of the SQL.
/// Before applying anything the migrator checks every recorded migration against the list and refuses to
/// go on (`.migrationChanged`, naming the file) when one was edited, renamed or removed, so a server never
/// runs against a schema its migrations no longer describe.
public struct Migrator: Sendable {
    /// The migrations, in version order.
    public let migrations: [Migration]
    private let now: @Sendable () -> Int64

    /// Makes a migrator for `migrations`.
    /// - Parameters:
    ///   - migrations: in any order; the migrator orders them by version.
    ///   - now: Unix seconds recorded as `applied_at`.
    public init(
        migrations: [Migration], now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.now = now
    }

    /// Checks applied migrations and applies the pending ones, in version order, on the writer.
    /// - Returns: the names applied by this call (empty when the schema was already current).
    /// - Throws: `.migrationChanged` when an applied migration changed or is missing from the list;
    ///   `.migrationInvalid` for two migrations with one version or a new one older than the newest applied
    ///   one; the SQL error (prefixed with the migration's name) when a migration fails, in which case that
    ///   migration is rolled back and later ones are not run.
    @discardableResult
    public func migrate(_ database: any SQLDatabase) throws -> [String] {
        let applied = try database.writeSync { connection in try migrate(on: connection) }
        for name in applied { database.logger.debug("migration applied", metadata: ["migration": "\(name)"]) }
        return applied
    }

    /// The advisory lock PostgreSQL instances take while they migrate (an arbitrary constant: "postern" in ASCII).
    public static let postgresAdvisoryLock: Int64 = 0x706F_7374_6572_6E

    /// `migrate(_:)` on one connection of either dialect. On PostgreSQL it holds the session advisory lock
    /// ``postgresAdvisoryLock`` throughout, so that instances starting together on one database migrate
    /// once: the first applies, the others wait for the lock and then find nothing pending.
    @discardableResult
    public func migrate(on connection: any SQLConnection) throws -> [String] {
        let migrations = migrations
        for (earlier, later) in zip(migrations, migrations.dropFirst()) where earlier.version == later.version {
            throw StorageError(.migrationInvalid, "\(earlier.name) and \(later.name) share version \(later.version)")
        }
        return try connection.withDatabaseLock(Self.postgresAdvisoryLock) { try migrateLocked(on: connection) }
    }

    /// `migrate(on:)` once the lock is held.
    private func migrateLocked(on connection: any SQLConnection) throws -> [String] {
        let migrations = migrations
        try connection.execute(Self.createTable(connection.dialect))
        let recorded = try connection.query("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
        let byVersion = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        var newestApplied: Int64 = 0
        for row in recorded {
            let version = row.int("version") ?? -1
            let name = row.text("name") ?? "?"
            guard let migration = byVersion[version] else {
                throw StorageError(
                    .migrationChanged,
                    "applied migration \(name) is not among this build's migrations (renamed, removed, or "
                        + "applied by a newer postern)")
            }
            guard migration.name == name, migration.checksum == row.text("checksum") else {
                throw StorageError(
                    .migrationChanged,
                    "\(migration.name) differs from the applied migration \(name); add a new migration instead")
            }
            newestApplied = max(newestApplied, version)
        }
        let appliedVersions = Set(recorded.compactMap { $0.int("version") })
        let pending = migrations.filter { !appliedVersions.contains($0.version) }
        if let stale = pending.first(where: { $0.version < newestApplied }) {
            throw StorageError(
                .migrationInvalid, "\(stale.name) is older than the newest applied migration; renumber it")
        }
        var names: [String] = []
        for migration in pending {
            do {
                try connection.transaction {
                    try connection.execute(migration.sql)
                    try connection.run(
                        "INSERT INTO schema_migrations(version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                        [
                            .integer(migration.version), .text(migration.name), .text(migration.checksum),
                            .integer(now()),
                        ])
                }
            } catch let error as StorageError {
                throw error.withContext(migration.name)
            }
            names.append(migration.name)
        }
        return names
    }

    private static func createTable(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            return """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    checksum TEXT NOT NULL,
                    applied_at INTEGER NOT NULL
                ) STRICT
                """
        case .postgres:
            return """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version BIGINT PRIMARY KEY,
                    name TEXT NOT NULL,
                    checksum TEXT NOT NULL,
                    applied_at BIGINT NOT NULL
                )
                """
        }
    }
}
