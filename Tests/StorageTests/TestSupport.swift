import EmbeddedResources
import Foundation
import Logging
import PosternTestSupport

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

typealias Backend = StorageBackend

/// Runs `body` with a way to open a migrated database of `backend`: every call to `open` gives a new
/// handle on the same database, as a second process (SQLite) or a second instance (PostgreSQL) would have.
func withMigratedDatabase<T>(
    _ backend: Backend, _ body: (_ open: () throws -> any SQLDatabase) async throws -> T
) async throws -> T {
    let test = try backend.makeDatabase(logger: testLogger)
    var first: (any SQLDatabase)? = test.database
    return try await body {
        if let database = first {
            first = nil
            return database
        }
        return try test.another()
    }
}
