import Testing

@testable import Storage

@Suite("Full disk")
struct FullDiskTests {
    @Test("SQLITE_FULL surfaces as .full (unavailable), rolls the transaction back whole, and writes recover")
    func fullDatabase() async throws {
        try await withAsyncTemporaryDirectory { directory in
            let database = try openMigratedDatabase(directory)
            let pages = try await database.write { connection -> Int64 in
                try connection.execute(
                    "CREATE TABLE filler(batch INTEGER NOT NULL, half INTEGER NOT NULL, payload BLOB NOT NULL) STRICT")
                return try connection.query("PRAGMA page_count").first?.int("page_count") ?? 0
            }
            #expect(pages > 0 && pages < 400)
            // A database capped 24 pages past its schema behaves like a full disk (pragmas take no bound
            // parameters); the cap follows the schema, which grows with every migration.
            try await database.write { try $0.execute("PRAGMA max_page_count = \(pages + 24)") }

            // Each batch is one transaction of two rows; the second row of the failing batch must vanish
            // together with the first.
            @Sendable func insertBatch(_ batch: Int64) async throws {
                try await database.write { connection in
                    try connection.transaction {
                        for half: Int64 in [0, 1] {
                            try connection.run(
                                "INSERT INTO filler(batch, half, payload) VALUES (?, ?, ?)",
                                [.integer(batch), .integer(half), .blob(Array(repeating: 0x5A, count: 3_000))])
                        }
                    }
                }
            }
            var committed: Int64 = 0
            var failure: StorageError?
            while committed < 1_000 {
                do {
                    try await insertBatch(committed)
                    committed += 1
                } catch let error as StorageError {
                    failure = error
                    break
                }
            }
            #expect(failure?.code == .full)
            #expect(failure?.isUnavailable == true)
            #expect(committed > 0)
            let rows = try await database.read { try $0.query("SELECT count(*) AS n, max(batch) AS top FROM filler") }
                .first
            #expect(rows?.int("n") == committed * 2)
            #expect(rows?.int("top") == committed - 1)

            // The ledger on a full database fails as unavailable, never as "already used".
            let ledger = ChallengeLedger(database: database)
            var ledgerError: StorageError?
            for index in 0..<100_000 {
                do {
                    let fresh = try await ledger.consume(id: "fill-\(index)", surface: "agent", expiresAt: 1)
                    #expect(fresh)
                } catch let error as StorageError {
                    ledgerError = error
                    break
                }
            }
            #expect(ledgerError?.code == .full)
            #expect(ledgerError?.isUnavailable == true)
            let whileFull = await #expect(throws: StorageError.self) {
                try await ledger.consume(id: "while-full", surface: "agent", expiresAt: 9_999)
            }
            #expect(whileFull?.code == .full)
            #expect(try await ledger.purgeExpired(now: 2) > 0)

            // Space returns by deleting data: the same cap accepts a new batch.
            let oldest = committed / 2
            try await database.write { _ = try $0.run("DELETE FROM filler WHERE batch < ?", [.integer(oldest)]) }
            try await insertBatch(committed)
            #expect(try await ledger.consume(id: "while-full", surface: "agent", expiresAt: 9_999))

            // Space returns by raising the cap: many more batches fit.
            try await database.write { try $0.execute("PRAGMA max_page_count = 100000") }
            for batch in (committed + 1)...(committed + 100) { try await insertBatch(batch) }
            let check = try await database.read { try $0.query("PRAGMA integrity_check") }
            #expect(check.first?.values.first == .text("ok"))
        }
    }

    @Test("error classification: full, I/O, busy, cannot open and read-only are unavailable; constraints are not")
    func classification() {
        let unavailable: [Int32] = [13, 10, 10 | (3 << 8), 5, 6, 14, 8]
        for code in unavailable {
            #expect(StorageError(resultCode: code, message: "").isUnavailable, "code \(code)")
        }
        #expect(StorageError(resultCode: 13, message: "").code == .full)
        #expect(StorageError(resultCode: 19 | (8 << 8), message: "").code == .constraintUnique)
        #expect(StorageError(resultCode: 19 | (6 << 8), message: "").code == .constraintUnique)
        #expect(StorageError(resultCode: 19 | (5 << 8), message: "").code == .constraint)
        #expect(StorageError(resultCode: 11, message: "").code == .corrupt)
        #expect(StorageError(resultCode: 1, message: "").code == .sqlite)
        // A PostgreSQL commit in doubt (the standby never confirmed it) is the store's state: 503, never a 2xx.
        #expect(StorageError(.inDoubt, "").isUnavailable)
        #expect(StorageError(.unavailable, "").isUnavailable)
        for code: Int32 in [19, 19 | (8 << 8), 11, 1, 21] {
            #expect(StorageError(resultCode: code, message: "").isUnavailable == false, "code \(code)")
        }
    }
}
