import CSQLite
import Foundation

extension Database {
    /// Copies the whole database to `destination` with SQLite's online backup, while writes go on.
    ///
    /// The copy is taken on a reader connection in one read transaction, so it is one consistent
    /// snapshot; the writer keeps committing into the WAL meanwhile. The copy is built in a temporary
    /// file next to `destination` and renamed over it only when complete, so `destination` never
    /// holds half a backup.
    /// - Parameter destination: the backup file path (replaced when it exists).
    /// - Throws: `StorageError` (`.cantOpen`, `.full`, `.io`, ...) when the copy fails; nothing is left at
    ///   `destination` then.
    public func backup(to destination: String) throws {
        let temporary = destination + ".partial-\(getpid())"
        unlink(temporary)
        defer { unlink(temporary) }
        // The copy holds every account's secrets: owner-only from its first byte (SQLite keeps the mode of
        // a file that exists; made with the process umask, it could be world-readable).
        let created = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw StorageError(.cantOpen, "cannot create the backup file: \(String(cString: strerror(errno)))")
        }
        _ = fchmod(created, 0o600)
        Glibc.close(created)
        try readSQLite { source in
            try Database.copy(from: source.handle, toFileAt: temporary)
        }
        guard rename(temporary, destination) == 0 else {
            throw StorageError(.io, "cannot move the backup into place: \(String(cString: strerror(errno)))")
        }
        logger.debug("storage backup written", metadata: ["destination": "\(destination)"])
    }

    private static func copy(from source: OpaquePointer, toFileAt path: String) throws {
        var pointer: OpaquePointer?
        let opened = sqlite3_open_v2(
            path, &pointer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard let destination = pointer else {
            throw StorageError(resultCode: opened, message: "cannot open backup file")
        }
        defer { sqlite3_close_v2(destination) }
        guard opened == SQLITE_OK else { throw SQLiteConnection.error(opened, destination) }
        sqlite3_extended_result_codes(destination, 1)

        guard let backup = sqlite3_backup_init(destination, "main", source, "main") else {
            throw SQLiteConnection.error(sqlite3_errcode(destination), destination)
        }
        var result: Int32
        var busyRetries = 0
        repeat {
            // -1 copies every page in one step, inside a single read transaction on the source.
            result = sqlite3_backup_step(backup, -1)
            if result == SQLITE_BUSY || result == SQLITE_LOCKED {
                busyRetries += 1
                if busyRetries > 250 { break }  // 250 x 20 ms: the same 5 s as the busy timeout
                sqlite3_sleep(20)
            }
        } while result == SQLITE_OK || result == SQLITE_BUSY || result == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE else { throw StorageError(resultCode: result, message: "backup step failed") }
        guard finished == SQLITE_OK else { throw SQLiteConnection.error(finished, destination) }
    }
}
