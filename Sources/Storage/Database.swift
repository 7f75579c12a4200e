import Dispatch
import Foundation
import Logging
import Synchronization

/// A SQLite database file with exactly one writer connection and a few reader connections.
///
/// The writer runs every write on one serial queue, so writes never contend inside the process;
/// each reader has its own serial queue, and a read goes to the reader with the least work queued.
/// The file is in WAL mode with `synchronous=FULL` (a write acknowledged by `write`/`writeSync`
/// survives `kill -9` and power loss), a 5 s busy timeout (for other processes, such as
/// `postern migrate`), and foreign keys on.
public final class Database: ThreadOwnedReading {
    /// SQLite's.
    public var dialect: SQLDialect { .sqlite }
    /// The path the database was opened at.
    public let path: String
    let writer: ConfinedConnection<SQLiteConnection>
    /// `write`'s way to the writer: group commit (``BatchedWriter``).
    let batchedWriter: BatchedWriter
    private let readers: LeastBusy<SQLiteConnection>
    /// A read-only connection per thread that reads on its own thread (`readOnCallingThread`).
    private let threadReaders: ThreadOwnedReaders
    /// Receives debug-level lines about the store.
    public let logger: Logger

    private init(
        path: String, writer: ConfinedConnection<SQLiteConnection>, readers: [ConfinedConnection<SQLiteConnection>],
        threadReaders: ThreadOwnedReaders, logger: Logger
    ) {
        self.path = path
        self.threadReaders = threadReaders
        self.writer = writer
        self.batchedWriter = BatchedWriter(writer)
        self.readers = LeastBusy(readers)
        self.logger = logger
    }

    /// Opens (creating when missing) the database at `path`.
    ///
    /// The file is created with mode 0600 whatever the umask (its `-wal` and `-shm` files take the same mode), and
    /// group and other access is taken off an existing one and its companions: it holds mail, password hashes
    /// and stored secrets.
    /// - Parameters:
    ///   - path: a file path; the directory must exist. In-memory databases are refused.
    ///   - readerCount: number of read-only connections, at least 1.
    ///   - logger: receives debug-level lines about the store.
    /// - Throws: `StorageError` (`.cantOpen`, `.readOnly`, `.corrupt`, `.misuse` for a bad path or count).
    public static func open(path: String, readerCount: Int = 2, logger: Logger) throws -> Database {
        guard readerCount >= 1 else { throw StorageError(.misuse, "readerCount must be at least 1") }
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else {
            throw StorageError(.misuse, "Database needs a file path")
        }
        let tightened = PrivateFiles.prepareDatabase(at: path)
        if !tightened.isEmpty {
            logger.debug("storage took group and other access off", metadata: ["files": "\(tightened)"])
        }
        let writerConnection = try SQLiteConnection(path: path, mode: .writer)
        let writer = ConfinedConnection(connection: writerConnection, label: "postern.storage.writer")
        var readers: [ConfinedConnection<SQLiteConnection>] = []
        for index in 0..<readerCount {
            let connection = try SQLiteConnection(path: path, mode: .reader)
            readers.append(ConfinedConnection(connection: connection, label: "postern.storage.reader.\(index)"))
        }
        logger.debug("storage opened", metadata: ["path": "\(path)", "readers": "\(readerCount)"])
        return Database(
            path: path, writer: writer, readers: readers, threadReaders: try ThreadOwnedReaders(path: path),
            logger: logger)
    }

    /// Closes every connection once the blocks already queued on it have run, the writer last (its close
    /// checkpoints the WAL into the database file). Later reads and writes throw `StorageError` `.misuse`.
    /// - Warning: blocks the caller; never call it from a block running on the database.
    public func close() {
        threadReaders.close()
        readers.close()
        writer.close()
    }

    /// Runs `body` on the writer queue with the writer connection, and returns once what it wrote is durable.
    ///
    /// Use `connection.transaction { ... }` for more than one statement. Writes that queue up together share one
    /// commit (``BatchedWriter``); each behaves as if alone.
    /// - Throws: what `body` throws (typically `StorageError`), or the commit's error.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await batchedWriter.write(body)
    }

    /// Runs `body` on one reader's queue with a read-only connection.
    /// - Throws: what `body` throws; writing through a reader throws `.readOnly`.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await readers.async { try body($0) }
    }

    /// Blocking form of `write` for the command line and tests.
    /// - Warning: never call it from inside a `write` body or from a Swift concurrency task that
    ///   must not block; calling it on the writer queue traps instead of deadlocking.
    @discardableResult
    public func writeSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try writer.sync(body)
    }

    /// Blocking form of `read` for the command line and tests.
    /// - Warning: never call it from inside a `read` body on the same reader.
    public func readSync<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try readSQLite(body)
    }

    /// Runs `body` on the calling thread with a read-only connection that thread owns (opened on its first read, kept
    /// until `close`): an event loop's short work reads without a hop to a reader queue or a wait behind another
    /// thread's read. For threads that live as long as the database (``ThreadOwnedReaders``).
    /// - Throws: what `body` throws; `StorageError` (`.busy` after a short wait, `.misuse` once closed).
    public func readOnCallingThread<T: Sendable>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try threadReaders.read(body)
    }

    /// `write` for short work that must not wait (an event loop's): `body` is queued to the writer's group commit and
    /// `completion` is called once, on the writer's queue, after the commit or with the error.
    public func write<T: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        batchedWriter.write(body, completion: completion)
    }

    /// `readSync` with SQLite's own connection (the backup copies through its handle).
    func readSQLite<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.sync(body)
    }

    /// Proves the database accepts a durable write (for `/readyz`): upserts the single
    /// `readiness_probe` row with `now`.
    /// - Throws: `StorageError`; `isUnavailable` is true for a full disk, I/O error or busy timeout.
    public func probeWrite(now: Int64) async throws {
        try await write { connection in try Self.probe(connection, now: now) }
    }
}
