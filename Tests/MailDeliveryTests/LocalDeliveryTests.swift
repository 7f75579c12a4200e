import Directory
import Logging
import MailDelivery
import MailStore
import PosternTestSupport
import Testing

/// ``LocalDelivery`` over a memory directory and a real ``MailStore`` on each backend (every test takes
/// `StorageBackend.allCases`): which recipients are local, and what is stored for each.
@Suite("LocalDelivery: recipient verdicts and the copies stored")
struct LocalDeliveryTests {
    static let directory = MemoryDirectory(
        domains: ["local.test"],
        quotas: ["alice@local.test": 1_000_000, "bob@local.test": 1_000_000, "alice+team@local.test": 1_000_000,
                 "tiny@local.test": 10])
    static let message = Array("From: a@remote.test\r\nSubject: hello\r\n\r\nbody\r\n".utf8)

    /// A delivery into a fresh database of `backend`; the store beside it, to read back what was stored.
    struct Setup {
        let test: TestDatabase
        let store: MailStore
        let delivery: LocalDelivery

        init(_ backend: StorageBackend, directory: MemoryDirectory = LocalDeliveryTests.directory,
             policy: RecipientPolicy = RecipientPolicy(), maximumMessageBytes: Int = 1 << 20,
             extracting: Bool = true) throws {
            test = try backend.makeDatabase(logger: Logger(label: "mail-delivery-tests"))
            store = MailStore(database: test.database)
            delivery = LocalDelivery(
                directory: directory, store: store, maximumMessageBytes: maximumMessageBytes, policy: policy,
                extracting: extracting, clock: { 1_700_000_000 })
        }

        /// The ids in `address`'s inbox.
        func inbox(_ address: String) async throws -> [String] {
            try await store.page(address: address, page: 1, perPage: 100).map(\.id)
        }
    }

    @Test(
        "codes are found as a message is stored; with extraction off it has none until the backfill finds them",
        arguments: StorageBackend.allCases)
    func extraction(_ backend: StorageBackend) async throws {
        let message = Array("From: a@remote.test\r\nSubject: Your code\r\n\r\nYour verification code is 482913.\r\n".utf8)
        let envelope = MailEnvelope(mailFrom: "a@remote.test", recipients: ["alice@local.test"])
        let on = try Setup(backend)
        let found = try await on.delivery.store(envelope, data: message)
        #expect(try await on.store.extraction(address: "alice@local.test", id: found)?.codes.first?.value == "482913")

        let off = try Setup(backend, extracting: false)
        let later = try await off.delivery.store(envelope, data: message)
        #expect(try await off.store.extraction(address: "alice@local.test", id: later) == nil)
        let backfill = try await off.store.extractMissing(batch: 10)
        #expect(backfill.filled == 1 && backfill.remaining == 0)
        #expect(try await off.store.extraction(address: "alice@local.test", id: later)?.codes.first?.value == "482913")
    }

    @Test(
        "verdicts: a local mailbox is accepted, a local domain's unknown user is unknown, another domain is relay",
        arguments: StorageBackend.allCases)
    func verdicts(_ backend: StorageBackend) async throws {
        let setup = try Setup(backend)
        #expect(await setup.delivery.verdict(forRecipient: "alice@local.test") == .accept)
        #expect(await setup.delivery.verdict(forRecipient: "ALICE@Local.Test") == .accept)
        #expect(await setup.delivery.verdict(forRecipient: "carol@local.test") == .unknownLocal)
        #expect(await setup.delivery.verdict(forRecipient: "alice@remote.test") == .relayDenied)
        // Subaddressing is off by default: a tag makes an unknown user.
        #expect(await setup.delivery.verdict(forRecipient: "alice+news@local.test") == .unknownLocal)
    }

    @Test(
        "with a delimiter a subaddress resolves to its base; an account named with the tag itself wins",
        arguments: StorageBackend.allCases)
    func subaddresses(_ backend: StorageBackend) async throws {
        let setup = try Setup(backend, policy: RecipientPolicy(delimiters: "+"))
        #expect(await setup.delivery.verdict(forRecipient: "alice+news@local.test") == .accept)
        #expect(await setup.delivery.verdict(forRecipient: "carol+news@local.test") == .unknownLocal)
        #expect(await setup.delivery.verdict(forRecipient: "+news@local.test") == .unknownLocal)
        let tagged = try await setup.delivery.resolve("alice+news@local.test")
        #expect(tagged == .local(Recipient(address: "alice@local.test", quota: 1_000_000)))
        let literal = try await setup.delivery.resolve("alice+team@local.test")
        #expect(literal == .local(Recipient(address: "alice+team@local.test", quota: 1_000_000)))
    }

    @Test(
        "with the catch-all every address is accepted; unreadable accounts accept only a local domain",
        arguments: StorageBackend.allCases)
    func catchAllAndUnreadableVerdicts(_ backend: StorageBackend) async throws {
        let catching = try Setup(backend, policy: RecipientPolicy(catchAll: RecipientPolicy.catchAll()))
        #expect(await catching.delivery.verdict(forRecipient: "carol@local.test") == .accept)
        #expect(await catching.delivery.verdict(forRecipient: "anyone@remote.test") == .accept)

        var down = Self.directory
        down.failing = true
        let failing = try Setup(backend, directory: down)
        #expect(await failing.delivery.verdict(forRecipient: "alice@local.test") == .accept)
        #expect(await failing.delivery.verdict(forRecipient: "alice@remote.test") == .relayDenied)
        await #expect(throws: MemoryDirectory.Unreadable.self) {
            _ = try await failing.delivery.store(
                MailEnvelope(mailFrom: "a@remote.test", recipients: ["alice@local.test"]), data: Self.message)
        }
    }

    @Test(
        "one copy per local mailbox however many of its subaddresses were named; foreign recipients are skipped",
        arguments: StorageBackend.allCases)
    func oneCopyPerMailbox(_ backend: StorageBackend) async throws {
        let setup = try Setup(backend, policy: RecipientPolicy(delimiters: "+"))
        let envelope = MailEnvelope(
            mailFrom: "a@remote.test",
            recipients: ["alice@local.test", "Alice+News@local.test", "bob@local.test", "carol@local.test",
                         "dave@remote.test"])
        let id = try await setup.delivery.store(envelope, data: Self.message)
        let alice = try await setup.inbox("alice@local.test")
        #expect(alice == [id])
        #expect(try await setup.inbox("bob@local.test").count == 1)
        #expect(try await setup.inbox("carol@local.test").isEmpty)
        #expect(try await setup.inbox("dave@remote.test").isEmpty)
        let stored = try #require(try await setup.store.message(address: "alice@local.test", id: id))
        #expect(stored.summary.subject == "hello" && stored.summary.envelopeFrom == "a@remote.test")
        #expect(stored.summary.receivedAt == 1_700_000_000)
    }

    @Test(
        "no local recipient left: noLocalRecipient and nothing stored; with the catch-all, one copy kept there",
        arguments: StorageBackend.allCases)
    func noLocalRecipient(_ backend: StorageBackend) async throws {
        let setup = try Setup(backend)
        let envelope = MailEnvelope(mailFrom: "a@remote.test", recipients: ["carol@local.test", "dave@remote.test"])
        await #expect {
            _ = try await setup.delivery.store(envelope, data: Self.message)
        } throws: { error in
            guard case LocalDeliveryError.noLocalRecipient = error else { return false }
            return true
        }
        #expect(try await setup.inbox(RecipientPolicy.catchAllAddress).isEmpty)

        let catching = try Setup(backend, policy: RecipientPolicy(catchAll: RecipientPolicy.catchAll()))
        let id = try await catching.delivery.store(envelope, data: Self.message)
        #expect(try await catching.inbox(RecipientPolicy.catchAllAddress) == [id])
        #expect(try await catching.inbox("carol@local.test").isEmpty)
    }

    @Test(
        "a full mailbox refuses the whole delivery (one transaction); deliverEach refuses only its copy",
        arguments: StorageBackend.allCases)
    func quotas(_ backend: StorageBackend) async throws {
        let setup = try Setup(backend)
        let envelope = MailEnvelope(mailFrom: "a@remote.test", recipients: ["alice@local.test", "tiny@local.test"])
        await #expect {
            _ = try await setup.delivery.store(envelope, data: Self.message)
        } throws: { error in
            guard case LocalDeliveryError.stored(.quotaExceeded(let address)) = error else { return false }
            return address == "tiny@local.test"
        }
        #expect(try await setup.inbox("alice@local.test").isEmpty)

        let message = try setup.delivery.message(Self.message, envelopeFrom: "a@remote.test")
        let delivery = setup.delivery
        let stored = try await setup.test.database.write { connection in
            try connection.transaction {
                try delivery.deliverEach(
                    message,
                    to: [
                        Recipient(address: "alice@local.test", quota: 1_000_000),
                        Recipient(address: "tiny@local.test", quota: 10),
                    ], now: 1_700_000_000, on: connection)
            }
        }
        #expect(stored == [true, false])
        #expect(try await setup.inbox("alice@local.test").count == 1)
        #expect(try await setup.inbox("tiny@local.test").isEmpty)
    }

    @Test("a message past the MIME limits is unreadable and nothing is stored", arguments: StorageBackend.allCases)
    func unreadable(_ backend: StorageBackend) async throws {
        let setup = try Setup(backend, maximumMessageBytes: 32)
        let envelope = MailEnvelope(mailFrom: "a@remote.test", recipients: ["alice@local.test"])
        await #expect {
            _ = try await setup.delivery.store(envelope, data: Self.message)
        } throws: { error in
            guard case LocalDeliveryError.unreadable = error else { return false }
            return true
        }
        #expect(try await setup.inbox("alice@local.test").isEmpty)
    }
}
