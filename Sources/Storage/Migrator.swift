import Foundation

/// Applies `NNNN_name.sql` files from a directory in numeric order, each once, each in its own transaction.
///
/// Applied migrations are recorded in `schema_migrations(version, name, checksum, applied_at)` with the
/// SHA-256 of the file's bytes. Before applying anything the migrator checks every recorded migration
/// against its file and refuses to go on (`.migrationChanged`, naming the file) when one was edited,
/// renamed or removed, so a server never runs against a schema its files no longer describe.
/// Files whose names do not match `<digits>_<name>.sql` are ignored.
///
/// - Warning: a migration file must not contain its own `BEGIN`/`COMMIT`; the migrator wraps it.
public struct Migrator: Sendable {
    /// The directory holding the migration files.
    public let directory: String
    private let now: @Sendable () -> Int64

    /// One migration file found in the directory.
    struct File: Sendable {
        let version: Int64
        let name: String
        let sql: String
        let checksum: String
    }

    /// Makes a migrator for `directory`.
    /// - Parameters:
    ///   - directory: usually `migrations/` at the repository root.
    ///   - now: Unix seconds recorded as `applied_at`.
    public init(directory: String, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.directory = directory
        self.now = now
    }

    /// Checks applied migrations and applies the pending ones, in version order, on the writer.
    /// - Returns: the file names applied by this call (empty when the schema was already current).
    /// - Throws: `.notFound` when the directory cannot be read; `.migrationChanged` when an applied
    ///   file changed or is missing; `.migrationInvalid` for two files with one version or a new file
    ///   older than the newest applied one; the SQL error (prefixed with the file name) when a
    ///   migration fails, in which case that migration is rolled back and later ones are not run.
    @discardableResult
    public func migrate(_ database: Database) throws -> [String] {
        let files = try scan()
        let now = now
        let applied = try database.writeSync { connection -> [String] in
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    checksum TEXT NOT NULL,
                    applied_at INTEGER NOT NULL
                ) STRICT
                """)
            let recorded = try connection.query(
                "SELECT version, name, checksum FROM schema_migrations ORDER BY version")
            let byVersion = Dictionary(uniqueKeysWithValues: files.map { ($0.version, $0) })
            var newestApplied: Int64 = 0
            for row in recorded {
                let version = row.int("version") ?? -1
                let name = row.text("name") ?? "?"
                guard let file = byVersion[version] else {
                    throw StorageError(.migrationChanged, "applied migration \(name) is missing from \(directory)")
                }
                guard file.name == name, file.checksum == row.text("checksum") else {
                    throw StorageError(
                        .migrationChanged,
                        "\(file.name) differs from the applied migration \(name); add a new migration instead")
                }
                newestApplied = max(newestApplied, version)
            }
            let appliedVersions = Set(recorded.compactMap { $0.int("version") })
            let pending = files.filter { !appliedVersions.contains($0.version) }
            if let stale = pending.first(where: { $0.version < newestApplied }) {
                throw StorageError(
                    .migrationInvalid, "\(stale.name) is older than the newest applied migration; renumber it")
            }
            var names: [String] = []
            for file in pending {
                do {
                    try connection.transaction {
                        try connection.execute(file.sql)
                        try connection.run(
                            "INSERT INTO schema_migrations(version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                            [.integer(file.version), .text(file.name), .text(file.checksum), .integer(now())])
                    }
                } catch let error as StorageError {
                    throw error.withContext(file.name)
                }
                names.append(file.name)
            }
            return names
        }
        for name in applied { database.logger.debug("migration applied", metadata: ["migration": "\(name)"]) }
        return applied
    }

    /// Migration files in version order.
    func scan() throws -> [File] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw StorageError(.notFound, "cannot read migrations directory \(directory)")
        }
        var files: [File] = []
        for entry in entries {
            guard let version = Migrator.version(ofFileNamed: entry) else { continue }
            let path = directory + "/" + entry
            guard let data = FileManager.default.contents(atPath: path) else {
                throw StorageError(.notFound, "cannot read migration \(entry)")
            }
            let bytes = [UInt8](data)
            guard let sql = String(validating: bytes, as: UTF8.self) else {
                throw StorageError(.migrationInvalid, "\(entry) is not UTF-8")
            }
            files.append(File(version: version, name: entry, sql: sql, checksum: MigrationChecksum.sha256Hex(bytes)))
        }
        files.sort { $0.version < $1.version }
        for (earlier, later) in zip(files, files.dropFirst()) where earlier.version == later.version {
            throw StorageError(.migrationInvalid, "\(earlier.name) and \(later.name) share version \(later.version)")
        }
        return files
    }

    /// The version of a `<digits>_<name>.sql` file name; nil for any other name.
    static func version(ofFileNamed name: String) -> Int64? {
        guard name.hasSuffix(".sql") else { return nil }
        let stem = name.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let label = stem[stem.index(after: underscore)...]
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard !label.isEmpty, label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else {
            return nil
        }
        return Int64(digits)
    }
}
