import AuthCrypto
import EmbeddedResources
import Foundation
import Logging
import PostgresClient
import Storage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where a test's database comes from: a copy of one that the shipped migrations were applied to once, instead of
/// applying every migration again for each test (on PostgreSQL a copy is one `CREATE DATABASE … TEMPLATE`, on SQLite
/// one file copy; applying some fifty migrations took longer than most tests). A template is named after a digest of
/// the migrations' checksums, so a changed or added migration makes a new one and a stale one is never used; the
/// runtime's migrator still runs on the copy and finds nothing to apply, as it does on a restart.
public enum MigratedTemplate {
    /// A digest of the backend's shipped migrations (versions and checksums): the templates' names.
    public static func fingerprint(_ dialect: SQLDialect) -> String {
        let listed = EmbeddedResources.migrations(for: dialect).map { "\($0.version):\($0.checksum)" }
        return SHA256.hash(listed.joined(separator: ",")).prefix(8).map { byte in
            (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// Copies the migrated SQLite template to `path` (a file that does not exist yet), making the template first
    /// when no test process has: `VACUUM INTO` a temporary name, then a rename, so a reader never sees half of one.
    public static func copySQLite(to path: String, logger: Logger) throws {
        let template = try sqliteTemplate(logger: logger)
        try FileManager.default.copyItem(atPath: template, toPath: path)
    }

    private static let sqliteMade = Mutex<String?>(nil)

    private static func sqliteTemplate(logger: Logger) throws -> String {
        try sqliteMade.withLock { made in
            if let made { return made }
            let path = try madeOnce("sqlite-\(fingerprint(.sqlite)).sqlite3") { scratch in
                let database = try Database.open(path: scratch + "/postern.sqlite3", readerCount: 1, logger: logger)
                defer { database.close() }
                try Migrator(migrations: EmbeddedResources.migrations(for: .sqlite)).migrate(database)
                let copy = scratch + "/template.sqlite3"
                try database.writeSync { try $0.execute("VACUUM INTO '\(copy)'") }
                return copy
            }
            made = path
            return path
        }
    }

    /// `$TMPDIR/postern-test-templates/<name>`, made first when no test process has: `build` makes it in a scratch
    /// directory of this process's own and returns its path there, which is renamed into place, so that a reader
    /// never sees half of one and two processes racing keep one.
    public static func madeOnce(_ name: String, build: (_ scratch: String) throws -> String) throws -> String {
        let directory = NSTemporaryDirectory() + "postern-test-templates"
        let path = "\(directory)/\(name)"
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        let scratch = "\(directory)/building-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let built = try build(scratch)
        // A directory is not renamed onto one another process made meanwhile: then that one is kept.
        guard rename(built, path) == 0 || FileManager.default.fileExists(atPath: path) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        return path
    }
}

extension PostgresTestServer {
    /// A new database on the server holding every shipped migration: a copy of the server's migrated template,
    /// made by the first test process that needs it (under a name of its own, renamed into place once migrated, so
    /// that two processes racing make two and keep one). Its URL.
    public func migratedDatabase() throws -> String {
        try database(copying: migratedTemplate())
    }

    /// A new database on the server copied from the template `template`; its URL. The copy is of the template's
    /// files (`STRATEGY FILE_COPY`), not block by block through the write-ahead log (PostgreSQL 15's default): for a
    /// template of some 9 MB on a server with `fsync` off, 30 ms of the server's CPU instead of 50, and a run makes
    /// hundreds of them.
    public func database(copying template: String) throws -> String {
        let name = nextDatabaseName()
        let admin = try PostgresConnection(url: url)
        try admin.execute("CREATE DATABASE \(name) TEMPLATE \(template) STRATEGY FILE_COPY")
        return databaseURL(name)
    }

    /// The migrated template's name, made first when no test process has.
    public func migratedTemplate() throws -> String {
        try template(named: "postern_migrated_\(MigratedTemplate.fingerprint(.postgres))", copying: nil) { building in
            let database = try PostgresDatabase(url: building, count: 1, logger: Logger(label: "test"))
            defer { database.close() }
            try Migrator(migrations: EmbeddedResources.migrations(for: .postgres)).migrate(database)
        }
    }

    /// The template database `name`, made when no test process has: a new database (empty, or a copy of the template
    /// `base`) under a name of its own that `build` is given the URL of, renamed into place once built, so that two
    /// processes racing make two and keep one. `build` must have closed its connections when it returns.
    public func template(named name: String, copying base: String?, build: (String) throws -> Void) throws -> String {
        try templatesMade.withLock { made in
            if made.contains(name) { return name }
            let admin = try PostgresConnection(url: url)
            let exists = { try !admin.query("SELECT 1 FROM pg_database WHERE datname = ?", [.text(name)]).isEmpty }
            if try !exists() {
                let building = "\(name)_\(getpid())"
                try admin.execute("CREATE DATABASE \(building)" + (base.map { " TEMPLATE \($0)" } ?? ""))
                try build(databaseURL(building))
                try renameClosed(building, to: name, admin: admin, exists: exists)
            }
            made.insert(name)
            return name
        }
    }

    /// Renames the just-closed `building` to `name`; when another process made `name` first, drops `building`.
    /// The server ends a closed session's backend a moment after the client goes, and until then the database
    /// counts as in use, so a refusal is retried a few times.
    private func renameClosed(
        _ building: String, to name: String, admin: PostgresConnection, exists: () throws -> Bool
    ) throws {
        var attempt = 0
        while true {
            do {
                try admin.execute(
                    try exists() ? "DROP DATABASE \(building)" : "ALTER DATABASE \(building) RENAME TO \(name)")
                return
            } catch where attempt < 50 {
                attempt += 1
                usleep(100_000)
            }
        }
    }
}
