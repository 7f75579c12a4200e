import Foundation
import HTTPServer
import Logging
import SocketServer
import Storage
import PosternTestSupport
import Synchronization
import Testing

@testable import PosternApp

/// The data directory: made owner-only when Postern creates it; named in a warning when an existing one lets
/// group or others in; the database in it owner-only either way.
@Suite("Data directory")
struct DataDirectoryTests {
    final class Capture: Sendable {
        let lines = Mutex<[String]>([])
        var text: String { lines.withLock { $0.joined() } }
        func append(_ bytes: [UInt8]) { lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
    }

    static func logger(_ capture: Capture) -> Logger {
        Logger(label: "postern") { LineLogHandler(label: $0, level: .info, write: capture.append) }
    }

    static func scratch() -> String { NSTemporaryDirectory() + "postern-datadir-" + UUID().uuidString }

    @Test("a missing data directory is created 0700 under umask 022, without a warning")
    func createdPrivate() throws {
        let root = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let capture = Capture()
        try withUmask022 { try DataDirectory.prepare(root + "/data", logger: Self.logger(capture)) }
        #expect(fileMode(root + "/data") == 0o700)
        #expect(capture.text.isEmpty, "\(capture.text)")
    }

    @Test("an existing data directory open to group or others is named in a warning and left as it is")
    func existingOpenIsWarned() throws {
        let directory = Self.scratch()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(chmod(directory, 0o755) == 0)
        let capture = Capture()
        try DataDirectory.prepare(directory, logger: Self.logger(capture))
        #expect(capture.text.contains("warning"), "\(capture.text)")
        #expect(capture.text.contains(directory), "\(capture.text)")
        #expect(capture.text.contains("0755"), "\(capture.text)")
        #expect(fileMode(directory) == 0o755, "an operator's directory is theirs to change")

        #expect(chmod(directory, 0o700) == 0)
        let quiet = Capture()
        try DataDirectory.prepare(directory, logger: Self.logger(quiet))
        #expect(quiet.text.isEmpty, "\(quiet.text)")
    }

    @Test("the server's database in an existing 0755 data directory is 0600, with a warning about the directory")
    func databaseInOpenDirectory() throws {
        // The SQLite file is the subject.
        let configuration = TestServer.configuration(.sqlite, dataDirectory: Self.scratch())
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        try FileManager.default.createDirectory(
            atPath: configuration.storage.dataDirectory, withIntermediateDirectories: true)
        #expect(chmod(configuration.storage.dataDirectory, 0o755) == 0)
        let capture = Capture()
        let database = try withUmask022 {
            try DatabaseOpener.migrated(configuration, readers: 1, logger: Self.logger(capture)).database
        }
        defer { database.close() }
        let path = DataDirectory.databasePath(configuration.storage.dataDirectory)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(fileMode(file) == 0o600, "\(file): \(String(fileMode(file) ?? 0, radix: 8))")
        }
        #expect(capture.text.contains(configuration.storage.dataDirectory), "\(capture.text)")
    }
}
