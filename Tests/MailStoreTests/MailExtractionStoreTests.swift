import MIME
import MailExtraction
import PosternTestSupport
import Storage
import Testing

@testable import MailStore

@Suite(
    "Mail store: each message's codes and links, stored at delivery, filtered on, backfilled (issue 85)", .serialized)
struct MailExtractionStoreTests {
    static let address = "bot@mail.localhost"

    static func parsed(_ text: String) throws -> NewMailMessage {
        let raw = Array(text.utf8)
        return NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: "no-reply@acme.example", raw: raw)
    }

    static func deliver(_ text: String, _ store: MailStore, now: Int64 = 10) async throws -> String {
        try await store.deliver(
            try parsed(text), to: [.init(address: address, quota: 1 << 20)], folder: .inbox, now: now)[0]
    }

    @Test("an HTML-only verification mail is stored with its code and its links' kinds; a newsletter with none",
        arguments: StorageBackend.allCases)
    func storedAtDelivery(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let verify = try await Self.deliver(VerificationMail.raw(to: Self.address), store)
        let news = try await Self.deliver(VerificationMail.newsletter(to: Self.address), store, now: 11)

        let found = try #require(try await store.extraction(address: Self.address, id: verify))
        #expect(found.codes.first?.value == VerificationMail.code)
        #expect(found.codes.first?.sources == [.html])
        #expect(
            found.links.first == ExtractedLink(url: VerificationMail.verifyURL, text: "Verify email", kind: .verify))
        #expect(found.links.contains { $0.kind == .unsubscribe })
        #expect(try await store.extraction(address: Self.address, id: news)?.codes == [])
        #expect(try await store.extraction(address: "other@mail.localhost", id: verify) == nil)
        #expect(try await store.extractions(in: .everyAddress, ids: [verify, news, "nope"]).keys.sorted()
            == [news, verify].sorted())
        #expect(try await store.extractions(in: .address("other@mail.localhost"), ids: [verify]).isEmpty)

        func listed(_ filter: MailFilter) async throws -> [String] {
            try await store.list(MailSelection(.everyAddress, filter)).map(\.id)
        }
        #expect(try await listed(.hasCode(true)) == [verify])
        #expect(try await listed(.hasCode(false)) == [news])
        #expect(try await listed(.hasLinkKind(.verify)) == [verify])
        #expect(try await listed(.hasLinkKind(.unsubscribe)) == [verify])
        #expect(try await listed(.hasLinkKind(.signIn)) == [])
        #expect(try await listed(.hasLinkKind(.other)) == [news])
    }

    @Test(
        "a message's extraction goes with it, whoever deletes it, and with its copy", arguments: StorageBackend.allCases)
    func deletedWithItsMessage(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let id = try await Self.deliver(VerificationMail.raw(to: Self.address), store)
        #expect(try await Self.rows(db) == 1)
        // IMAP's COPY: the copy reads as its original does.
        _ = try await store.copy(address: Self.address, ids: [id], to: .sent, quota: 1 << 20)
        let copy = try #require(try await store.list(MailSelection(.address(Self.address), .inFolder(.sent))).first)
        #expect(
            try await store.extraction(address: Self.address, id: copy.id)
                == store.extraction(address: Self.address, id: id))
        #expect(try await Self.rows(db) == 2)
        #expect(try await store.delete(address: Self.address, id: id))
        #expect(try await store.delete(address: Self.address, id: copy.id))
        #expect(try await Self.rows(db) == 0)
    }

    @Test("a message stored without one has none, and the backfill fills it in batches, resumably",
        arguments: StorageBackend.allCases)
    func backfill(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let first = try await Self.deliver(VerificationMail.raw(to: Self.address), store)
        let second = try await Self.deliver(VerificationMail.newsletter(to: Self.address), store, now: 11)
        let third = try await Self.deliver(VerificationMail.raw(to: Self.address, subject: "Again"), store, now: 12)
        // As a release before migration 0068 (or during a rolling upgrade) leaves them.
        try await db.run("DELETE FROM mail_extractions")
        #expect(try await store.extraction(address: Self.address, id: first) == nil)
        #expect(try await store.list(MailSelection(.everyAddress, .hasCode(true))).isEmpty)

        #expect(try await store.extractMissing(batch: 2) == .init(filled: 2, remaining: 1))
        let filled = try await store.extraction(address: Self.address, id: first)
        #expect(filled?.codes.first?.value == VerificationMail.code)
        #expect(try await store.extraction(address: Self.address, id: second)?.codes == [])
        #expect(try await store.extraction(address: Self.address, id: third) == nil)
        #expect(try await store.extractMissing(batch: 2) == .init(filled: 1, remaining: 0))
        #expect(try await store.extractMissing(batch: 2) == .init(filled: 0, remaining: 0))
        #expect(try await store.list(MailSelection(.everyAddress, .hasCode(true))).map(\.id).sorted()
            == [first, third].sorted())
    }

    static func rows(_ db: MailDatabase) async throws -> Int64 {
        try await db.database.read { try $0.query("SELECT COUNT(*) AS n FROM mail_extractions", []).first?.int("n") }
            ?? -1
    }
}
