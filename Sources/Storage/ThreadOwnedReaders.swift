import Glibc
import Synchronization

/// Read-only SQLite connections, each owned by one thread and used on it alone: an event loop's point read runs on the
/// loop's own thread, with no hop to a reader queue and no wait behind another thread's read (GRDB's rule, one
/// connection to one thread, kept by the thread itself rather than by a queue).
///
/// A thread's connection is opened on its first read and kept while the database is open. Meant for threads that live
/// as long as the database (event loops): each thread that reads this way holds a connection. In WAL mode a reader
/// waits for no writer; its busy timeout is short (`busyTimeoutMilliseconds`), so that the rare wait SQLite may still
/// ask of it (a WAL being recovered by another process) fails fast instead of holding the loop.
final class ThreadOwnedReaders: Sendable {
    /// One thread's connection. Its lock is taken by that thread for each read and by `close` once: never contended
    /// while the database is open.
    final class Reader: Sendable {
        let connection: Mutex<SQLiteConnection?>

        init(_ connection: consuming sending SQLiteConnection) {
            self.connection = Mutex(connection)
        }
    }

    /// How long a thread-owned reader waits for a lock before failing (`SQLITE_BUSY`), in milliseconds.
    static let busyTimeoutMilliseconds: Int32 = 50

    private let path: String
    /// The calling thread's `Reader`, unretained: `readers` keeps every one alive as long as this object, whose
    /// `deinit` deletes the key.
    private let key: pthread_key_t
    /// Every reader opened, and whether `close` ran.
    private let readers = Mutex<(all: [Reader], closed: Bool)>(([], false))

    /// Readers of the database file at `path` (in WAL mode already).
    /// - Throws: `StorageError` `.misuse` when the process has no thread-specific key left.
    init(path: String) throws {
        var key = pthread_key_t()
        guard pthread_key_create(&key, nil) == 0 else { throw StorageError(.misuse, "no thread-specific key left") }
        self.key = key
        self.path = path
    }

    deinit {
        pthread_key_delete(key)
    }

    /// Runs `body` on the calling thread with the thread's own connection, opening it on the thread's first read.
    /// - Throws: what `body` throws; `StorageError` when the connection cannot be opened, `.misuse` after `close`.
    func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try current().connection.withLock { connection throws -> T in
            guard let connection else { throw StorageError(.misuse, "the database is closed") }
            defer { connection.rollbackIfOpen() }
            return try body(connection)
        }
    }

    /// Closes every thread's connection; later reads throw `.misuse`.
    func close() {
        let all = readers.withLock { state in
            state.closed = true
            return state.all
        }
        for reader in all { reader.connection.withLock { $0 = nil } }
    }

    /// The calling thread's reader, opened when it has none.
    private func current() throws -> Reader {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Reader>.fromOpaque(pointer).takeUnretainedValue()
        }
        let reader = Reader(
            try SQLiteConnection(path: path, mode: .reader, busyTimeoutMilliseconds: Self.busyTimeoutMilliseconds))
        try readers.withLock { state throws in
            guard !state.closed else { throw StorageError(.misuse, "the database is closed") }
            state.all.append(reader)
        }
        pthread_setspecific(key, Unmanaged.passUnretained(reader).toOpaque())
        return reader
    }
}
