import Foundation
import MIME
import MailStore
import PosternTestSupport
import Testing

/// What may be submitted, and the sender read from it (issue 49): only a message this account wrote, and only with a
/// header every receiver reads the same way. Each of these was sent as the account before: a received message whose
/// From was the account's own address, and the From lines that a lenient reader took as the account's address while
/// receivers read another.
@Suite("JMAP submission: what may be sent, and as whom")
struct JMAPSubmissionOriginTests {
    /// Stores `raw` at `agent`'s address: written there (as `Email/set` stores) or received (as SMTP delivers).
    static func store(
        _ raw: String, at agent: JMAPAgent, in harness: JMAPHarness, origin: MailOrigin
    ) async throws -> String {
        let store = MailStore(database: harness.database)
        let bytes = Array(raw.utf8)
        let message = NewMailMessage(try MIMEParser.parse(bytes), envelopeFrom: agent.address, raw: bytes)
        switch origin {
        case .written:
            return try await store.save(
                message, address: agent.address, quota: JMAPHarness.defaultInboxQuota, folder: .drafts,
                keywords: ["$draft"], now: 1_790_000_000)
        case .received:
            return try await store.deliver(
                message, to: [MailStore.Recipient(address: agent.address, quota: JMAPHarness.defaultInboxQuota)],
                folder: .inbox, now: 1_790_000_000)[0]
        }
    }

    /// `EmailSubmission/set` of `emailID` to `recipient`; the refusal's type and description, nil when created.
    static func submit(
        _ emailID: String, as agent: JMAPAgent, to recipient: String, in harness: JMAPHarness, mailFrom: String? = nil
    ) async throws -> Refusal? {
        let responses = try await harness.call(agent, [
            ["EmailSubmission/set",
             ["accountId": agent.accountID,
              "create": ["s1": ["emailId": emailID,
                                "envelope": ["mailFrom": ["email": mailFrom ?? agent.address],
                                             "rcptTo": [["email": recipient]]]]]],
             "c1"]
        ])
        let response = try #require(responses.first)
        if response.object("created")?["s1"] != nil { return nil }
        let refusal = try #require(response.object("notCreated")?["s1"] as? [String: Any], "\(response.arguments)")
        return Refusal(type: refusal["type"] as? String, description: refusal["description"] as? String)
    }

    struct Refusal: Equatable {
        let type: String?
        let description: String?
    }

    @Test(
        "a received message whose From is the account's own address is not sent again: invalidEmail",
        arguments: StorageBackend.allCases)
    func receivedIsNotSubmitted(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let own = try await harness.signUp("owner")
        let bob = try await harness.signUp("bobby")
        let id = try await Self.store(
            "From: \(own.address)\r\nTo: \(bob.address)\r\nSubject: forwarded as is\r\n\r\nhi\r\n", at: own, in: harness,
            origin: .received)
        let refusal = try #require(try await Self.submit(id, as: own, to: bob.address, in: harness))
        #expect(refusal.type == "invalidEmail")
        #expect(refusal.description?.contains("received") == true, "\(refusal)")
        #expect(try await harness.ids(bob, in: "inbox").isEmpty)
    }

    @Test(
        "a written message whose From some receiver reads as another address is refused, nothing delivered",
        arguments: StorageBackend.allCases, [
            "From: ceo@agents.test\rX-Hide: <owner@agents.test>",
            "From: <ceo@agents.test> <owner@agents.test>",
            "From: <ceo@agents.test> \"<owner@agents.test>\"",
            "From: ceo@agents.test\nX-Hide: <owner@agents.test>",
            "From: owner@agents.test\r\nFrom : ceo@agents.test",
            "From: owner@agents.test\u{0}",
        ])
    func spoofedFrom(_ backend: StorageBackend, _ fromLines: String) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let own = try await harness.signUp("owner")
        let bob = try await harness.signUp("bobby")
        let id = try await Self.store(
            "\(fromLines)\r\nTo: \(bob.address)\r\nSubject: from the CEO\r\n\r\nwire the money\r\n", at: own,
            in: harness, origin: .written)
        let refusal = try #require(try await Self.submit(id, as: own, to: bob.address, in: harness))
        #expect(["invalidEmail", "forbiddenFrom"].contains(refusal.type), "\(refusal)")
        #expect(try await harness.ids(bob, in: "inbox").isEmpty)
    }

    @Test(
        "a From or an envelope mailFrom that is the account's address only under Unicode's case folding (KELVIN SIGN) is refused, nothing delivered (issue 66)",
        arguments: StorageBackend.allCases)
    func lookAlikeSender(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let own = try await harness.signUp("kathy")
        let bob = try await harness.signUp("bobby")
        let lookAlike = "\u{212A}athy@" + own.address.split(separator: "@")[1]
        #expect(lookAlike.lowercased() == own.address)  // what the old comparison saw
        let spoofed = try await Self.store(
            "From: \(lookAlike)\r\nTo: \(bob.address)\r\nSubject: look again\r\n\r\nhi\r\n", at: own, in: harness,
            origin: .written)
        let refusal = try #require(try await Self.submit(spoofed, as: own, to: bob.address, in: harness))
        #expect(["invalidEmail", "forbiddenFrom"].contains(refusal.type), "\(refusal)")
        let honest = try await Self.store(
            "From: \(own.address)\r\nTo: \(bob.address)\r\nSubject: mine\r\n\r\nhi\r\n", at: own, in: harness,
            origin: .written)
        let envelope = try #require(
            try await Self.submit(honest, as: own, to: bob.address, in: harness, mailFrom: lookAlike))
        #expect(envelope.type == "forbiddenMailFrom", "\(envelope)")
        #expect(try await harness.ids(bob, in: "inbox").isEmpty)
        // The account's own address in another ASCII case is the account's.
        #expect(
            try await Self.submit(honest, as: own, to: bob.address, in: harness, mailFrom: own.address.uppercased())
                == nil)
    }

    @Test(
        "a written message with the account's own From, in any of the RFC's spellings, is sent",
        arguments: StorageBackend.allCases)
    func ownFromIsSent(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let own = try await harness.signUp("owner")
        let bob = try await harness.signUp("bobby")
        for from in [
            "Owner <owner@agents.test>", "\"Owner, the\" <OWNER@agents.test> (me)", "owner@agents.test",
            "<\"owner\"@agents.test>",
        ] {
            let id = try await Self.store(
                "From: \(from)\r\nTo: \(bob.address)\r\nSubject: mine\r\n\r\nhello\r\n", at: own, in: harness,
                origin: .written)
            let refusal = try await Self.submit(id, as: own, to: bob.address, in: harness)
            #expect(refusal == nil, "\(from): \(String(describing: refusal))")
        }
        #expect(try await harness.ids(bob, in: "inbox").count == 4)
    }

    @Test(
        "a Resent-From or Resent-Sender naming another inbox is forbiddenFrom; the account's own is sent (issue 81)",
        arguments: StorageBackend.allCases)
    func resentOriginators(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let own = try await harness.signUp("owner")
        let bob = try await harness.signUp("bobby")
        let carol = try await harness.signUp("carol")
        // As an agent APPENDs it to Drafts over IMAP: written by the account, its From the account's own.
        for resent in [
            "Resent-From: \(carol.address)", "Resent-Sender: \(carol.address)",
            "Resent-From: \(own.address), \(carol.address)",
            "Resent-From: \(own.address)\r\nResent-Sender: Carol <\(carol.address)>",
        ] {
            let id = try await Self.store(
                "From: \(own.address)\r\n\(resent)\r\nTo: \(bob.address)\r\nSubject: as carol\r\n\r\nhi\r\n", at: own,
                in: harness, origin: .written)
            let refusal = try #require(try await Self.submit(id, as: own, to: bob.address, in: harness), "\(resent)")
            #expect(refusal.type == "forbiddenFrom", "\(resent): \(refusal)")
            #expect(refusal.description?.contains("Resent") == true, "\(resent): \(refusal)")
        }
        #expect(try await harness.ids(bob, in: "inbox").isEmpty)
        let forwarded = try await Self.store(
            "From: \(own.address)\r\nResent-From: \(own.address)\r\nResent-Sender: <\(own.address)>\r\n"
                + "To: \(bob.address)\r\nSubject: mine again\r\n\r\nhi\r\n", at: own, in: harness, origin: .written)
        #expect(try await Self.submit(forwarded, as: own, to: bob.address, in: harness) == nil)
        #expect(try await harness.ids(bob, in: "inbox").count == 1)
    }
}
