import EmbeddedResources
import Foundation
import Logging
import PostgresClient
import Storage

extension StorageBackend {
    /// The SQL dialect of this backend.
    public var dialect: SQLDialect { self == .sqlite ? .sqlite : .postgres }

    /// Runs `body` on a new database of this backend migrated to `version` (the shipped migrations up to it, none
    /// after), for a migration test to write rows as they were then and apply what follows; `body` is given every
    /// shipped migration of the backend's dialect. The database is closed, and SQLite's file removed, afterwards.
    /// - Throws: storage errors, and what `body` throws.
    public func withDatabase<T>(
        migratedTo version: Int, logger: Logger = Logger(label: "postern.storage.tests"),
        _ body: (_ database: any SQLDatabase, _ migrations: [Migration]) throws -> T
    ) throws -> T {
        let all = EmbeddedResources.migrations(for: dialect)
        let directory = NSTemporaryDirectory() + "postern-migration-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database: any SQLDatabase =
            self == .sqlite
            ? try Database.open(path: directory + "/postern.sqlite", readerCount: 1, logger: logger)
            : try PostgresDatabase(url: PostgresTestServer.shared().freshDatabase(), count: 1, logger: logger)
        defer { database.close() }
        try Migrator(migrations: all.filter { $0.version <= version }).migrate(database)
        return try body(database, all)
    }
}
