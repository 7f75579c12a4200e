import EmbeddedResources
import Foundation
import Logging
import PostgresClient
import Storage

/// The two storage backends. A test that runs SQL takes `StorageBackend.allCases` as its arguments and builds its
/// harness from the one it is given, so one `swift test` runs it on SQLite (a file in a temporary directory) and on
/// PostgreSQL (a new database on ``PostgresTestServer``); a test that runs none runs once.
public enum StorageBackend: String, CaseIterable, Sendable {
    case sqlite, postgres

    /// A new, migrated, empty database of this backend (a copy of ``MigratedTemplate``'s).
    public func makeDatabase(logger: Logger = Logger(label: "postern.storage.tests")) throws -> TestDatabase {
        switch self {
        case .sqlite:
            let directory = NSTemporaryDirectory() + "postern-storage-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try MigratedTemplate.copySQLite(to: directory + "/postern.sqlite", logger: logger)
            return try TestDatabase(directory: directory) {
                let database = try Database.open(path: directory + "/postern.sqlite", readerCount: 2, logger: logger)
                try Migrator(migrations: EmbeddedResources.migrations(for: .sqlite)).migrate(database)
                return database
            }
        case .postgres:
            let url = try PostgresTestServer.shared().migratedDatabase()
            return try TestDatabase(directory: nil) {
                let database = try PostgresDatabase(url: url, count: 2, logger: logger)
                try Migrator(migrations: EmbeddedResources.migrations(for: .postgres)).migrate(database)
                return database
            }
        }
    }
}

/// A test's database: ``database``, and ``another()`` for more handles on the same data (a second process
/// on SQLite's file, a second instance on PostgreSQL's database). SQLite's directory goes with it.
public final class TestDatabase: @unchecked Sendable {
    /// The first handle.
    public let database: any SQLDatabase
    private let open: () throws -> any SQLDatabase
    private let directory: String?

    init(directory: String?, open: @escaping () throws -> any SQLDatabase) throws {
        self.directory = directory
        self.open = open
        database = try open()
    }

    /// Another handle on the same database (migrations already applied: this applies none).
    public func another() throws -> any SQLDatabase {
        try open()
    }

    deinit {
        database.close()
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
