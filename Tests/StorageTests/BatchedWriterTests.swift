import Dispatch
import Testing

@testable import Storage

/// Group commit (``BatchedWriter``): writes queued behind a busy writer share a transaction, and each is answered as
/// if it had run alone. The writer is held with a semaphore until the writes are queued, so the batch is certain.
@Suite("Batched writes")
struct BatchedWriterTests {
    struct Refused: Error {}

    /// Holds the writer's queue while `writes` queue up, in their order, then lets it go; returns their results.
    static func batched(
        _ database: Database, _ writes: [@Sendable (any SQLConnection) throws -> Int]
    ) async -> [Result<Int, any Error>] {
        let hold = DispatchSemaphore(value: 0)
        database.writer.queue.async { hold.wait() }
        return await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for (index, write) in writes.enumerated() {
                group.addTask {
                    do { return (index, .success(try await database.write(write))) } catch { return (index, .failure(error)) }
                }
                // Queued in their order: each before the next starts.
                while database.batchedWriter.queuedCount <= index { await Task.yield() }
            }
            hold.signal()
            var results: [Result<Int, any Error>?] = Array(repeating: nil, count: writes.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    static func open(_ directory: String) async throws -> Database {
        let database = try openDatabase(directory)
        try await database.write { connection in
            try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE) STRICT")
        }
        return database
    }

    static func values(_ database: Database) async throws -> [String] {
        try await database.read { try $0.query("SELECT v FROM t ORDER BY v").compactMap { $0.text("v") } }
    }

    @Test("queued writes share one commit; a failed transaction, a throw after a statement and a nested transaction each end as alone")
    func sharedCommit() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try await Self.open(directory)
            let insert: @Sendable (String) -> @Sendable (any SQLConnection) throws -> Int = { value in
                { connection in try connection.transaction { try connection.run("INSERT INTO t(v) VALUES (?)", [.text(value)]) } }
            }
            let results = await Self.batched(database, [
                insert("a"),
                insert("b"),
                // Its transaction fails on the unique key: rolled back alone (its first row too).
                { connection in
                    try connection.transaction {
                        try connection.run("INSERT INTO t(v) VALUES ('c')")
                        return try connection.run("INSERT INTO t(v) VALUES ('a')")
                    }
                },
                // A statement outside a transaction, then a throw: the statement stays, as autocommit kept it.
                { connection in
                    try connection.run("INSERT INTO t(v) VALUES ('d')")
                    throw Refused()
                },
                // Transactions still do not nest.
                { connection in try connection.transaction { try connection.transaction { 1 } } },
                insert("e"),
            ])
            #expect(database.batchedWriter.committedBatches == 1)
            #expect(try results[0].get() == 1 && results[1].get() == 1 && results[5].get() == 1)
            #expect(throws: StorageError.self) { try results[2].get() }
            #expect(throws: Refused.self) { try results[3].get() }
            #expect((try? results[4].get()) == nil)
            if case .failure(let error as StorageError) = results[4] { #expect(error.code == .misuse) }
            #expect(try await Self.values(database) == ["a", "b", "d", "e"])
            database.close()
        }
    }

    @Test("a batch SQLite rolls back answers every write run in it with an error; the rest commit after")
    func rolledBackBatch() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try await Self.open(directory)
            let results = await Self.batched(database, [
                { try $0.run("INSERT INTO t(v) VALUES ('lost')") },
                // As SQLite does after SQLITE_FULL or an I/O error inside a statement.
                { connection in
                    try connection.execute("ROLLBACK")
                    return 0
                },
                { try $0.run("INSERT INTO t(v) VALUES ('kept')") },
            ])
            #expect((try? results[0].get()) == nil)
            #expect((try? results[1].get()) == nil)
            #expect(try results[2].get() == 1)
            #expect(try await Self.values(database) == ["kept"])
            database.close()
        }
    }

    @Test("a write handed off without waiting (write(_:completion:)) joins the batch and is answered after its commit")
    func handedOff() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try await Self.open(directory)
            let hold = DispatchSemaphore(value: 0)
            database.writer.queue.async { hold.wait() }
            let answered = { (body: @escaping @Sendable (any SQLConnection) throws -> Int) in
                AsyncStream<(Result<Int, any Error>, committed: [String])> { stream in
                    database.write(body) { result in
                        // Answered after the COMMIT: a reader of its own sees what the batch wrote.
                        let committed = (try? database.readSync { try $0.query("SELECT v FROM t ORDER BY v") })?
                            .compactMap { $0.text("v") } ?? []
                        stream.yield((result, committed))
                        stream.finish()
                    }
                }
            }
            let first = answered { try $0.run("INSERT INTO t(v) VALUES ('a')") }
            let second = answered { connection in
                try connection.run("INSERT INTO t(v) VALUES ('b')")
                throw Refused()
            }
            #expect(database.batchedWriter.queuedCount == 2)
            hold.signal()
            let one = try #require(await first.first { _ in true })
            let two = try #require(await second.first { _ in true })
            #expect(try one.0.get() == 1)
            // The second's statement ran before its throw, outside a transaction: kept, as autocommit kept it.
            #expect(one.committed == ["a", "b"] && two.committed == ["a", "b"])
            #expect(throws: Refused.self) { try two.0.get() }
            #expect(database.batchedWriter.committedBatches == 1)
            database.close()
        }
    }

    @Test("a write alone runs outside any batch, in autocommit, as before")
    func alone() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try await Self.open(directory)
            let autocommit = try await database.write { connection in
                (connection as? SQLiteConnection)?.isAutocommit == true
            }
            #expect(autocommit)
            #expect(database.batchedWriter.committedBatches == 0)
            database.close()
        }
    }
}
