import Foundation
import Testing

@testable import Storage

@Suite("Database.backup")
struct BackupTests {
    @Test("an online backup taken during writes is a valid database holding one consistent snapshot")
    func backupDuringWrites() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try openMigratedDatabase(directory)
            try await database.write { connection in
                try connection.execute(
                    "CREATE TABLE pair(batch INTEGER NOT NULL, half INTEGER NOT NULL, payload BLOB NOT NULL) STRICT")
            }
            // Every transaction writes two rows, so a consistent snapshot always holds an even count.
            @Sendable func writeBatch(_ batch: Int64) async throws {
                try await database.write { connection in
                    try connection.transaction {
                        for half: Int64 in [0, 1] {
                            try connection.run(
                                "INSERT INTO pair(batch, half, payload) VALUES (?, ?, ?)",
                                [
                                    .integer(batch), .integer(half),
                                    .blob(Array(repeating: UInt8(batch & 0xff), count: 2_000)),
                                ])
                        }
                    }
                }
            }
            for batch in 0..<200 { try await writeBatch(Int64(batch)) }
            #expect(
                try await ChallengeLedger(database: database).consume(
                    id: "in-backup", surface: "agent", expiresAt: 9_999))

            let writer = Task {
                var batch: Int64 = 1_000
                while !Task.isCancelled {
                    try await writeBatch(batch)
                    batch += 1
                }
            }
            let target = directory + "/backup.sqlite"
            for _ in 0..<3 {
                try database.backup(to: target)
                let copy = try SQLiteConnection(path: target, mode: .writer)
                #expect(try copy.query("PRAGMA integrity_check").first?.values.first == .text("ok"))
                let pairs = try copy.query("SELECT count(*) AS n FROM pair").first?.int("n") ?? -1
                #expect(pairs >= 400)
                #expect(pairs % 2 == 0)
                #expect(try copy.query("SELECT id FROM challenges").first?.text("id") == "in-backup")
            }
            writer.cancel()
            _ = try? await writer.value
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.contains(".partial-")
            }
            #expect(leftovers.isEmpty)
        }
    }

    @Test("the backup file is owner-only (0600) whatever the umask")
    func backupMode() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try openMigratedDatabase(directory)
            let previous = umask(0o022)
            defer { umask(previous) }
            let target = directory + "/backup.sqlite"
            try database.backup(to: target)
            let attributes = try FileManager.default.attributesOfItem(atPath: target)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    @Test("a backup into an unwritable place throws and leaves nothing behind")
    func backupFailure() throws {
        try withTemporaryDirectory { directory in
            let database = try openMigratedDatabase(directory)
            let error = #expect(throws: StorageError.self) {
                try database.backup(to: directory + "/no/such/dir/backup.sqlite")
            }
            #expect(error?.code == .cantOpen)
        }
    }
}
