import Dispatch
import Synchronization

/// SQLite's writer with group commit: the writes that queue up while the writer is busy run one after another in one
/// transaction and share its `COMMIT`, so that a burst of small durable writes (grants, deliveries, sign-ins) pays one
/// `fdatasync` rather than one each. A write alone runs exactly as it did: its own statements, its own commit.
///
/// Each write of a batch keeps what it would have had alone:
/// - its `transaction { }` is a savepoint of the batch's transaction, rolled back alone when its body throws (a
///   transaction inside it is `.misuse`, as before);
/// - statements outside a `transaction { }` are kept when the body throws after them, as autocommit kept them;
/// - it is answered only after the batch's `COMMIT` returned, so an acknowledged write is as durable as before. When
///   the `COMMIT` fails, every write of the batch is answered with that error and none is kept; when SQLite rolls the
///   batch back by itself (a full disk or an I/O error inside a statement), the writes run before in the batch are
///   answered with the error too, and the rest run in a batch of their own.
///
/// Only the order of commits changes, never the order of the writes: a write sees those queued before it.
final class BatchedWriter: Sendable {
    /// The most writes one transaction takes; the rest wait for the next (a bound on the first one's wait).
    static let maximumBatch = 64

    private let writer: ConfinedConnection<SQLiteConnection>
    private let queued = Mutex<(writes: [BatchedWrite], drainScheduled: Bool)>(([], false))
    /// How many batches of more than one write committed (for the tests).
    private let batchesCommitted = Atomic<Int>(0)

    init(_ writer: ConfinedConnection<SQLiteConnection>) {
        self.writer = writer
    }

    var committedBatches: Int { batchesCommitted.load(ordering: .relaxed) }
    /// How many writes wait for the writer (for the tests).
    var queuedCount: Int { queued.withLock { $0.writes.count } }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(BatchedWrite(body) { continuation.resume(with: $0) })
        }
    }

    /// ``write(_:)`` for a caller that does not wait: `completion` is called once, on the writer's queue, after the
    /// commit (or with the error).
    func write<T: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        enqueue(BatchedWrite(body, completion))
    }

    private func enqueue(_ write: BatchedWrite) {
        let schedule = queued.withLock { queued in
            queued.writes.append(write)
            defer { queued.drainScheduled = true }
            return !queued.drainScheduled
        }
        if schedule { writer.queue.async { self.drain() } }
    }

    /// On the writer's queue: every write queued so far, in batches of at most ``maximumBatch``.
    private func drain() {
        var writes = queued.withLock { queued in
            defer { queued = ([], false) }
            return queued.writes
        }
        var rest = writes[...]
        do {
            try writer.onQueue { connection in
                while !rest.isEmpty {
                    let batch = rest.prefix(Self.maximumBatch)
                    rest = rest.dropFirst(batch.count)
                    rest = run(batch, connection) + rest
                }
            }
        } catch {
            // The database is closed: nothing of `rest` ran.
            for write in rest { write.finish(error) }
        }
        // Answered, the writes are let go off the writer's queue: a completion (`write(_:completion:)`) may hold the
        // last reference to what owns this database, whose release then closes it, which must not run on its queue.
        // The one reference left is handed over: had `writes` or `rest` (an array of its own holding some of them)
        // still held them here, the release queue could let its copy go first and the last of them go here at this
        // function's end (make test, IMAPShortWorkTests' lane, after f6f83eaf).
        let released = ReleasedWrites(writes)
        writes = []
        rest = []
        Self.release.async { released.release() }
    }

    /// Where answered writes are let go (``drain()``).
    private static let release = DispatchQueue(label: "postern.storage.released-writes", qos: .utility)

    /// Answered writes on their way to ``release``, held only here once handed over; let go by `release()` there.
    private final class ReleasedWrites: @unchecked Sendable {
        private var writes: [BatchedWrite]
        init(_ writes: [BatchedWrite]) { self.writes = writes }
        /// On the release queue only, once.
        func release() { writes = [] }
    }

    /// Runs `batch` in one transaction (or alone, a batch of one) and answers each; returns the writes it did not
    /// run, after SQLite rolled the transaction back by itself.
    private func run(_ batch: ArraySlice<BatchedWrite>, _ connection: SQLiteConnection) -> ArraySlice<BatchedWrite> {
        guard batch.count > 1, (try? connection.execute("BEGIN IMMEDIATE")) != nil else {
            // Alone, or the batch's transaction could not begin: as the writer always ran a write.
            let write = batch[batch.startIndex]
            write.run(connection)
            connection.rollbackIfOpen()
            write.finish(nil)
            return batch.dropFirst()
        }
        connection.batching = true
        var ran: [BatchedWrite] = []
        for index in batch.indices {
            let write = batch[index]
            write.run(connection)
            if connection.isAutocommit {
                // SQLite rolled the batch back: what ran in it is gone, this write's too.
                connection.batching = false
                let lost = write.failure ?? StorageError(.io, "the write was rolled back")
                for earlier in ran { earlier.finish(lost) }
                write.finish(lost)
                return batch[(index + 1)...]
            }
            ran.append(write)
        }
        connection.batching = false
        do {
            try connection.execute("COMMIT")
            batchesCommitted.add(1, ordering: .relaxed)
            for write in ran { write.finish(nil) }
        } catch {
            connection.rollbackIfOpen()
            for write in ran { write.finish(error) }
        }
        return []
    }
}

/// One queued write: its body, run on the writer's queue, and its caller, answered after the commit. Touched on the
/// writer's queue only once queued.
final class BatchedWrite: @unchecked Sendable {
    private let body: (SQLiteConnection) -> Void
    private let answer: ((any Error)?) -> Void
    private let ownFailure: () -> (any Error)?

    init<T: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) throws -> T,
        _ completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let slot = Slot<T>()
        self.body = { connection in slot.result = Result { try body(connection) } }
        self.answer = { error in
            switch (slot.result, error) {
            case (.success?, let error?): completion(.failure(error))
            case (let result?, _): completion(result)
            case (nil, let error): completion(.failure(error ?? StorageError(.misuse, "the write did not run")))
            }
        }
        self.ownFailure = {
            if case .failure(let error)? = slot.result { return error }
            return nil
        }
    }

    /// Runs the body (once).
    func run(_ connection: SQLiteConnection) { body(connection) }
    /// The error the body threw, if it did.
    var failure: (any Error)? { ownFailure() }
    /// Answers the caller: the body's result, or `error` (the batch's) in place of a success.
    func finish(_ error: (any Error)?) { answer(error) }

    private final class Slot<T> {
        var result: Result<T, any Error>?
    }
}
