import MIME
import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// What other targets ask of the mail tables on their own connection or inside their own statement (issue 52): the
/// agent inbox's deletion, the Mail.td account's `used`, the metrics' outbox gauge and the webhook queue's order.
@Suite("Mail store: the mail tables in other targets' transactions and statements", .serialized)
struct MailStoreNeighboursTests {
    static func count(_ db: MailDatabase, _ sql: String, _ address: String) async throws -> Int64 {
        try await db.database.read { try $0.query(sql, [.text(address)]).first?.int("n") ?? -1 }
    }

    /// Rows of `address` in each table `deleteMailbox` empties, and its messages' attachments.
    static func rows(_ db: MailDatabase, _ address: String) async throws -> [Int64] {
        var counts: [Int64] = []
        for table in ["mail_messages", "mail_changes", "mail_state", "mail_blobs"] {
            counts.append(try await count(db, "SELECT COUNT(*) AS n FROM \(table) WHERE address = ?", address))
        }
        counts.append(
            try await count(
                db,
                "SELECT COUNT(*) AS n FROM mail_attachments a JOIN mail_messages m ON m.id = a.message_id WHERE m.address = ?",
                address))
        return counts
    }

    @Test("deleteMailbox empties an address's messages, attachments, change log, state and blobs, in the caller's transaction",
        arguments: StorageBackend.allCases)
    func deleteMailbox(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let pdf = MailAttachment(
            filename: "a.pdf", contentType: "application/pdf", contentID: nil, disposition: "attachment", data: [1])
        let recipients: [MailStore.Recipient] = [.init(address: "a@x", quota: 10_000), .init(address: "b@x", quota: 10_000)]
        _ = try await store.deliver(MailStoreTests.message("m", attachments: [pdf]), to: recipients, folder: .inbox, now: 1)
        for address in ["a@x", "b@x"] {
            _ = try await store.putBlob(address: address, type: "text/plain", data: [1], quota: 10_000, now: 1)
        }
        let before = try await Self.rows(db, "a@x")
        let others = try await Self.rows(db, "b@x")
        #expect(before.allSatisfy { $0 > 0 }, "\(before)")

        // A caller's transaction that fails after the delete takes it back with its own writes.
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await db.database.write { connection in
                try connection.transaction {
                    try MailStore.deleteMailbox("a@x", connection)
                    throw Refused()
                }
            }
        }
        #expect(try await Self.rows(db, "a@x") == before)

        try await db.database.write { connection in
            try connection.transaction { try MailStore.deleteMailbox("a@x", connection) }
        }
        #expect(try await Self.rows(db, "a@x") == [0, 0, 0, 0, 0])
        #expect(try await Self.rows(db, "b@x") == others)
        #expect(try await store.state(address: "a@x") == 0)
        #expect(try await store.used(address: "a@x") == 0)
    }

    @Test("messageBytes(ofAddressIn:) sums an address's messages in the caller's query: 0 for none, blobs not counted",
        arguments: StorageBackend.allCases)
    func messageBytes(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let a = [MailStore.Recipient(address: "a@x", quota: 10_000)]
        _ = try await store.deliver(MailStoreTests.message("one", bytes: 600), to: a, folder: .inbox, now: 1)
        _ = try await store.deliver(MailStoreTests.message("two", bytes: 400), to: a, folder: .sent, now: 2)
        _ = try await store.putBlob(address: "a@x", type: "text/plain", data: [1, 2, 3], quota: 10_000, now: 2)
        func used(_ address: String) async throws -> Int64? {
            try await db.database.read { connection in
                try connection.query(
                    "SELECT \(MailStore.messageBytes(ofAddressIn: "t.address")) AS used FROM (SELECT CAST(? AS TEXT) AS address) t",
                    [.text(address)]
                ).first?.int("used")
            }
        }
        #expect(try await used("a@x") == 1000)
        #expect(try await used("A@x") == 0, "addresses are compared as stored, lower-cased")
        #expect(try await used("nobody@x") == 0)
    }

    @Test("outboxCount counts the held outbox", arguments: StorageBackend.allCases)
    func outboxCount(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        #expect(try await db.database.read { try MailStore.outboxCount($0) } == 0)
        for n in 0..<2 {
            _ = try await store.keepInOutbox(sender: "a@x", recipients: ["out\(n)@example.com"], raw: [1], now: 1)
        }
        #expect(try await db.database.read { try MailStore.outboxCount($0) } == 2)
    }
}
