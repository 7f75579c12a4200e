import Foundation
import PosternTestSupport
import Testing

@testable import Storage

/// The database holds mail, password hashes and stored secrets: its files are owner-only whatever the
/// directory's mode and the process umask.
@Suite("Database file modes")
struct FileModeTests {
    @Test("in a 0755 directory under umask 022, the database and its -wal and -shm files are created 0600")
    func createdOwnerOnly() throws {
        try withTemporaryDirectory { directory in
            #expect(chmod(directory, 0o755) == 0)
            let path = directory + "/postern.sqlite3"
            let database = try withUmask022 {
                try Database.open(path: path, readerCount: 1, logger: testLogger)
            }
            defer { database.close() }
            try database.writeSync { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            #expect(try database.readSync { try $0.query("SELECT x FROM t").count } == 1)
            for file in [path, path + "-wal", path + "-shm"] {
                #expect(fileMode(file) == 0o600, "\(file): \(String(fileMode(file) ?? 0, radix: 8))")
            }
        }
    }

    @Test("an existing database and -wal/-shm left readable by others (an older version, a crash) are tightened")
    func existingTightened() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/postern.sqlite3"
            let first = try Database.open(path: path, readerCount: 1, logger: testLogger)
            defer { first.close() }
            try first.writeSync { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            for file in [path, path + "-wal", path + "-shm"] { #expect(chmod(file, 0o644) == 0) }

            let second = try Database.open(path: path, readerCount: 1, logger: testLogger)
            defer { second.close() }
            #expect(try second.readSync { try $0.query("SELECT x FROM t").count } == 1)
            for file in [path, path + "-wal", path + "-shm"] {
                #expect(fileMode(file) == 0o600, "\(file): \(String(fileMode(file) ?? 0, radix: 8))")
            }
        }
    }

    @Test("a backup is 0600 too, in a 0755 directory under umask 022")
    func backupOwnerOnly() throws {
        try withTemporaryDirectory { directory in
            #expect(chmod(directory, 0o755) == 0)
            let database = try openDatabase(directory)
            defer { database.close() }
            try database.writeSync { try $0.execute("CREATE TABLE t(x)") }
            let copy = directory + "/copy.sqlite3"
            try withUmask022 { try database.backup(to: copy) }
            #expect(fileMode(copy) == 0o600)
        }
    }
}
