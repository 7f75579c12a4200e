import Logging
import MIME
import MailStore
import PosternTestSupport
import Storage
import Testing
import Webhooks

/// The webhook queue's end of the delivery port on its own: rows in, the event the queue hands the dispatcher out,
/// on both backends.
@Suite("Webhook arrivals: the delivery's transaction queues the holder's event", .serialized)
struct WebhookArrivalsTests {
    /// A migrated database with a Pro user `pro-1` whose webhook `wh-1` has `status`.
    static func database(_ backend: StorageBackend, status: String = "active") async throws -> TestDatabase {
        let test = try backend.makeDatabase(logger: Logger(label: "webhook-arrivals-tests"))
        _ = try await test.database.write { connection in
            try connection.run(
                """
                INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at)
                    VALUES ('pro-1', 'pro@example.com', '', 10, 1)
                """, [])
            return try connection.run(
                """
                INSERT INTO mailbox_webhooks (id, owner_id, url, events, secret, status, created_at)
                    VALUES ('wh-1', 'pro-1', 'https://hooks.example.com/in', 'email.received', 'whsec_x', ?, 1)
                """, [.text(status)])
        }
        return test
    }

    static func message() throws -> NewMailMessage {
        let raw = Array("From: Ann <ann@example.net>\r\nSubject: Code\r\n\r\nYour code is 1.\r\n".utf8)
        return NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: "bounce@example.net", raw: raw)
    }

    @Test("a held inbox copy queues one event with the holder's account and the message's fields", arguments: StorageBackend.allCases)
    func queued(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        let store = MailStore(database: test.database, arrivals: WebhookArrivals())
        let holder = MailHolder(ownerID: "pro-1", accountID: "acct-1")
        let stranger = MailHolder(ownerID: "pro-2", accountID: nil)
        let ids = try await store.deliver(
            try Self.message(),
            to: [
                .init(address: "box@pro.localhost", quota: 1 << 20, holder: holder),
                .init(address: "free@mail.localhost", quota: 1 << 20),
                .init(address: "other@pro.localhost", quota: 1 << 20, holder: stranger),
            ], folder: .inbox, now: 1_750_000_000)
        let queue = WebhookQueue(database: test.database, retryDelaySeconds: [30])
        #expect(try await queue.depth() == 1)
        let jobs = try await queue.claim(now: 1_750_000_000_000, limit: 10)
        let job = try #require(jobs.first)
        #expect(jobs.count == 1)
        #expect(job.eventID == "evt_" + ids[0] && job.webhookID == "wh-1" && job.messageID == ids[0])
        #expect(job.address == "box@pro.localhost" && job.accountID == "acct-1" && job.eventType == "email.received")
        #expect(job.subject == "Code" && job.envelopeFrom == "bounce@example.net" && job.receivedAt == 1_750_000_000)
        #expect(MailStore.addresses(job.fromJSON).first?.email == "ann@example.net")
        #expect(job.url == "https://hooks.example.com/in" && job.secret == "whsec_x" && job.attempts == 0)
    }

    @Test("a failed webhook, another folder, or a store without the port queue nothing", arguments: StorageBackend.allCases)
    func nothingQueued(_ backend: StorageBackend) async throws {
        let failed = try await Self.database(backend, status: "failed")
        let holder = MailHolder(ownerID: "pro-1", accountID: nil)
        let recipient = MailStore.Recipient(address: "box@pro.localhost", quota: 1 << 20, holder: holder)
        _ = try await MailStore(database: failed.database, arrivals: WebhookArrivals())
            .deliver(try Self.message(), to: [recipient], folder: .inbox, now: 1)
        #expect(try await WebhookQueue(database: failed.database, retryDelaySeconds: [30]).depth() == 0)
        let active = try await Self.database(backend)
        let store = MailStore(database: active.database, arrivals: WebhookArrivals())
        _ = try await store.deliver(try Self.message(), to: [recipient], folder: .sent, now: 1)
        _ = try await MailStore(database: active.database)
            .deliver(try Self.message(), to: [recipient], folder: .inbox, now: 1)
        #expect(try await WebhookQueue(database: active.database, retryDelaySeconds: [30]).depth() == 0)
    }
}
