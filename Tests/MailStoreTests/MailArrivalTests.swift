import MIME
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import MailStore

/// The delivery port: what hears of held inbox copies, inside the delivery's own transaction.
@Suite("Mail arrivals: the delivery's transaction tells its observer of held inbox copies", .serialized)
struct MailArrivalTests {
    /// Records each arrival and writes a row of its own through the delivery's connection; throws for `refuse`.
    final class Recorder: MailArrivalObserver {
        let seen = Mutex<[MailArrival]>([])
        let refuse: String?

        init(refuse: String? = nil) { self.refuse = refuse }

        func arrived(_ arrival: MailArrival, in connection: any SQLConnection) throws {
            if arrival.address == refuse { throw StorageError(.constraintUnique, "refused") }
            seen.withLock { $0.append(arrival) }
            _ = try connection.run("INSERT INTO server_secrets (name, value) VALUES (?, ?)", [
                .text("arrival-" + arrival.messageID), .blob([1]),
            ])
        }
    }

    static func secrets(_ db: MailDatabase) async throws -> Int64 {
        try await db.database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM server_secrets WHERE name LIKE 'arrival-%'").first?
                .int("n") ?? 0
        }
    }

    @Test("only inbox copies of held recipients are told, with the holder, the message's fields and the copy's id", arguments: StorageBackend.allCases)
    func heldInboxCopies(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let recorder = Recorder()
        let store = MailStore(database: db.database, arrivals: recorder)
        let holder = MailHolder(ownerID: "pro-1", accountID: "acct-1")
        let ids = try await store.deliver(
            MailStoreTests.message("held"),
            to: [
                .init(address: "a@mail.localhost", quota: 1000, holder: holder),
                .init(address: "free@mail.localhost", quota: 1000),
            ], folder: .inbox, now: 42)
        _ = try await store.deliver(
            MailStoreTests.message("sent"), to: [.init(address: "a@mail.localhost", quota: 1000, holder: holder)],
            folder: .sent, now: 43)
        let seen = recorder.seen.withLock { $0 }
        #expect(seen.count == 1)
        let arrival = try #require(seen.first)
        #expect(arrival.messageID == ids[0] && arrival.address == "a@mail.localhost" && arrival.holder == holder)
        #expect(arrival.subject == "held" && arrival.size == 100 && arrival.receivedAt == 42)
        #expect(arrival.envelopeFrom == "sender@example.com" && arrival.preview.count == 256)
        #expect(MailStore.addresses(arrival.fromJSON) == [MailAddress(name: "Sender", email: "sender@example.com")])
        #expect(try await Self.secrets(db) == 1)
    }

    @Test("each arrival carries its copy's place in the arrival order, which orders copies of one second",
        arguments: StorageBackend.allCases)
    func arrivalOrder(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let recorder = Recorder()
        let store = MailStore(database: db.database, arrivals: recorder)
        let holder = MailHolder(ownerID: "pro-1", accountID: nil)
        for n in 0..<3 {
            _ = try await store.deliver(
                MailStoreTests.message("m\(n)"), to: [.init(address: "a@mail.localhost", quota: 10_000, holder: holder)],
                folder: .inbox, now: 7)
        }
        let seen = recorder.seen.withLock { $0 }
        let stored = try await db.database.read { connection in
            try seen.map {
                try connection.query("SELECT received_seq FROM mail_messages WHERE id = ?", [.text($0.messageID)])
                    .first?.int("received_seq")
            }
        }
        #expect(seen.map(\.arrivalOrder) == stored.compactMap { $0 } && seen.count == 3)
        #expect(seen.map(\.arrivalOrder) == seen.map(\.arrivalOrder).sorted() && Set(seen.map(\.arrivalOrder)).count == 3)
    }

    @Test("the observer writes in the delivery's transaction: a refusal of either stores neither", arguments: StorageBackend.allCases)
    func oneTransaction(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let holder = MailHolder(ownerID: "pro-1", accountID: nil)
        // The observer refuses the second copy: the first copy and its observer's row go too.
        let store = MailStore(database: db.database, arrivals: Recorder(refuse: "b@mail.localhost"))
        await #expect(throws: StorageError.self) {
            try await store.deliver(
                MailStoreTests.message("x"),
                to: [
                    .init(address: "a@mail.localhost", quota: 1000, holder: holder),
                    .init(address: "b@mail.localhost", quota: 1000, holder: holder),
                ], folder: .inbox, now: 1)
        }
        #expect(try await store.used(address: "a@mail.localhost") == 0)
        #expect(try await Self.secrets(db) == 0)
        // A quota refusal after the observer wrote for the first copy: its row goes with the message.
        let counting = MailStore(database: db.database, arrivals: Recorder())
        await #expect(throws: MailStoreError.self) {
            try await counting.deliver(
                MailStoreTests.message("y"),
                to: [
                    .init(address: "a@mail.localhost", quota: 1000, holder: holder),
                    .init(address: "b@mail.localhost", quota: 10, holder: holder),
                ], folder: .inbox, now: 2)
        }
        #expect(try await store.used(address: "a@mail.localhost") == 0)
        #expect(try await Self.secrets(db) == 0)
    }
}
