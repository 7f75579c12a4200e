import EmbeddedResources
import Foundation
import Logging
import PostgresClient
import Storage
import Testing

/// The two storage backends. A test that runs SQL takes `StorageBackend.allCases` as its arguments and builds its
/// harness from the one it is given, so one `swift test` runs it on SQLite (a file in a temporary directory) and on
/// PostgreSQL (a new database on ``PostgresTestServer``); a test that runs none runs once.
///
/// `POSTERN_TEST_BACKENDS` (a comma-separated list, e.g. `sqlite` as `make check` sets it) narrows `allCases` to the
/// backends it names; unset or empty, both. A test of PostgreSQL alone carries ``Trait/onPostgres``, so it is left out
/// with the backend.
public enum StorageBackend: String, CaseIterable, Sendable {
    case sqlite, postgres

    public static var allCases: [StorageBackend] { selected }

    private static let selected: [StorageBackend] = {
        let given = ProcessInfo.processInfo.environment["POSTERN_TEST_BACKENDS"] ?? ""
        let names = given.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return [.sqlite, .postgres] }
        return names.map { name in
            guard let backend = StorageBackend(rawValue: name) else {
                fatalError("POSTERN_TEST_BACKENDS names \(name): the backends are sqlite and postgres")
            }
            return backend
        }
    }()

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

extension Trait where Self == ConditionTrait {
    /// A test of PostgreSQL alone (a second instance's LISTEN, an outage, `pg_dump`): it runs when
    /// `StorageBackend.allCases` holds PostgreSQL, and is left out with it (`POSTERN_TEST_BACKENDS=sqlite`).
    public static var onPostgres: Self {
        .enabled(if: StorageBackend.allCases.contains(.postgres), "POSTERN_TEST_BACKENDS leaves PostgreSQL out")
    }
}
