import Foundation
import Logging
@testable import Storage

/// A fresh temporary directory per test, removed when the value is dropped by `withTemporaryDirectory`.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = NSTemporaryDirectory() + "postern-storage-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Async form of `withTemporaryDirectory`.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "postern-storage-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

let testLogger = Logger(label: "postern.storage.tests")

func openDatabase(_ directory: String, name: String = "postern.sqlite") throws -> Database {
    try Database.open(path: directory + "/" + name, readerCount: 2, logger: testLogger)
}
