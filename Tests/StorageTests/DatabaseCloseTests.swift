import Foundation
import Testing

@testable import Storage

@Suite("Database.close")
struct DatabaseCloseTests {
    @Test("close checkpoints the WAL into the file, and later reads and writes are refused as misuse")
    func closeCheckpointsAndRefuses() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try database.writeSync { try $0.execute("CREATE TABLE kept(value INTEGER); INSERT INTO kept VALUES (7)") }
            #expect(FileManager.default.fileExists(atPath: database.path + "-wal"))
            database.close()
            // The last connection to close folds the WAL into the database file and removes it.
            #expect(!FileManager.default.fileExists(atPath: database.path + "-wal"))
            #expect { try database.readSync { try $0.query("SELECT value FROM kept") } } throws: { error in
                (error as? StorageError)?.code == .misuse
            }
            #expect { try database.writeSync { try $0.run("INSERT INTO kept VALUES (8)") } } throws: { error in
                (error as? StorageError)?.code == .misuse
            }
            database.close()
            let reopened = try openDatabase(directory)
            #expect(try reopened.readSync { try $0.query("SELECT value FROM kept") }.first?.int("value") == 7)
        }
    }
}
