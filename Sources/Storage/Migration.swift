/// One numbered schema migration: its version, its file name and its SQL.
///
/// The checksum recorded for an applied migration is the SHA-256 of the SQL's UTF-8 bytes, which are the
/// bytes of its file in `migrations/sqlite/`, so databases migrated from files keep matching.
///
/// - Warning: the SQL must not contain its own `BEGIN`/`COMMIT`; the migrator wraps it in a transaction.
public struct Migration: Sendable, Equatable {
    /// The number that orders migrations; each version is applied once.
    public let version: Int64
    /// The file name, `<digits>_<name>.sql`; recorded with the version and named in every error.
    public let name: String
    /// The statements to run.
    public let sql: String
    /// Lowercase hex SHA-256 of `sql`'s UTF-8 bytes.
    public let checksum: String

    /// Creates a migration.
    /// - Parameters:
    ///   - version: its place in the order; two migrations with one version are refused by the migrator.
    ///   - name: the file name recorded in `schema_migrations`.
    ///   - sql: the statements, without `BEGIN`/`COMMIT`.
    public init(version: Int64, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        checksum = MigrationChecksum.sha256Hex(Array(sql.utf8))
    }

    /// A migration from a file named `<digits>_<name>.sql`, its version read from the name.
    /// - Returns: nil for any other file name (a README, an editor's backup), which is not a migration.
    public init?(fileNamed name: String, sql: String) {
        guard let version = Migration.version(ofFileNamed: name) else { return nil }
        self.init(version: version, name: name, sql: sql)
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
