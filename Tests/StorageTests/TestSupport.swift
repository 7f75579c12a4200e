import EmbeddedResources
import Foundation
import Logging
import PostgresClient
import PosternTestSupport
import Testing

@testable import Storage

/// A fresh temporary directory per test, removed when the value is dropped by `withTemporaryDirectory`.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = NSTemporaryDirectory() + "postern-storage-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Async form of `withTemporaryDirectory`.
func withAsyncTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "postern-storage-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

let testLogger = Logger(label: "postern.storage.tests")

func openDatabase(_ directory: String, name: String = "postern.sqlite") throws -> Database {
    try Database.open(path: directory + "/" + name, readerCount: 2, logger: testLogger)
}

/// Opens a database in `directory` with the migrations the server ships applied.
func openMigratedDatabase(_ directory: String, name: String = "postern.sqlite") throws -> Database {
    let database = try openDatabase(directory, name: name)
    try Migrator(migrations: EmbeddedResources.migrations).migrate(database)
    return database
}

func writeFile(_ path: String, _ text: String) throws {
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

func count(_ database: any SQLDatabase, _ table: String) throws -> Int64? {
    // Table names come from test code only, never from input.
    try database.readSync { try $0.query("SELECT count(*) AS n FROM \(table)").first?.int("n") }
}

/// The two storage backends; storage tests that take `Backend.allCases` run on both.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }
}

/// Runs `body` with a way to open a migrated database of `backend`: every call to `open` gives a new
/// handle on the same database, as a second process (SQLite) or a second instance (PostgreSQL) would have.
/// SQLite's lives in a temporary directory, PostgreSQL's is a new database on the test server.
func withMigratedDatabase<T>(
    _ backend: Backend, _ body: (_ open: () throws -> any SQLDatabase) async throws -> T
) async throws -> T {
    switch backend {
    case .sqlite:
        return try await withAsyncTemporaryDirectory { directory in
            try await body { try openMigratedDatabase(directory) }
        }
    case .postgres:
        let url = try PostgresTestServer.shared().freshDatabase()
        return try await body {
            let database = try PostgresDatabase(url: url, count: 2, logger: testLogger)
            try Migrator(migrations: EmbeddedResources.migrations(for: .postgres)).migrate(database)
            return database
        }
    }
}
