import CustomDomains
import DKIMKeys
import JSON
import PosternTestSupport
import Testing

@testable import MailboxAccounts

/// The DKIM records of Mail.td Pro custom domains: new `dns_records` entries after the TXT and MX, which keep their
/// shape; verification reports whether each is published and does not need them.
@Suite("Mail.td Pro custom domains: DKIM records")
struct MailboxDomainKeysTests {
    /// A harness with DKIM keys for custom domains, whose domain checks ask `server` (MX host `mx.postern.test`).
    static func harness(_ backend: StorageBackend, _ server: LoopbackDNSServer) throws -> MailboxHarness {
        try MailboxHarness(backend, dkim: true, dns: server) { $0.mxHost = "mx.postern.test" }
    }

    @Test(
        "create: the TXT and MX as before, then one _domainkey TXT per key, its keys made with the claim",
        arguments: StorageBackend.allCases)
    func createListsKeys(_ backend: StorageBackend) async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let store = try #require(harness.dkimKeys)
        let token = try await harness.proToken(email: "k@example.com")
        let created = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"Keys.Test"}"#, bearer: token)
        #expect(created.status == 201)
        let keys = try store.history(for: "keys.test")
        #expect(keys.map(\.algorithm) == [.rsaSHA256, .ed25519SHA256], "made when the domain was added")
        let records = try #require(created["dns_records"]?.arrayValue)
        #expect(records.count == 4)
        #expect(
            records.first
                == .object([
                    ("type", "TXT"), ("host", "keys.test"), ("value", .string(created.string("verify_token"))),
                ]))
        let mx: JSONValue = .object([
            ("type", "MX"), ("host", "keys.test"), ("value", "mx.postern.test"), ("priority", .int(10)),
        ])
        #expect(records[1] == mx)
        for (record, key) in zip(records.dropFirst(2), keys) {
            #expect(
                record
                    == .object([
                        ("type", "TXT"), ("host", .string(key.txtRecordName)), ("value", .string(key.txtRecordValue)),
                    ]))
        }
        #expect(records[2]["value"]?.stringValue?.hasPrefix("v=DKIM1; k=rsa; p=") == true)
        #expect(records[3]["value"]?.stringValue?.hasPrefix("v=DKIM1; k=ed25519; p=") == true)
    }

    @Test(
        "verify: each DKIM record's ok says whether it is published; the TXT token alone verifies the domain",
        arguments: StorageBackend.allCases)
    func verifyReportsKeys(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let token = try await harness.proToken(email: "v@example.com")
        let created = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"signed.test"}"#, bearer: token)
        let id = created.string("id")
        let keys = try #require(created["dns_records"]?.arrayValue).dropFirst(2).map {
            (name: $0["host"]?.stringValue ?? "", value: $0["value"]?.stringValue ?? "")
        }
        #expect(keys.count == 2)
        zone.set("signed.test", MailboxDomainTests.txt, .txt([created.string("verify_token")]))
        let verified = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(verified.status == 200)
        #expect(verified["verify_status"] == "verified" && verified["txt_record"] == .bool(true))
        #expect(verified.string("message") == "MX record not found", "DKIM is no part of the message")
        let unpublished = verified["dns_records"]?.arrayValue ?? []
        #expect(unpublished.map { $0["ok"] } == [.bool(true), .bool(false), .bool(false), .bool(false)])
        #expect(unpublished.dropFirst(2).map { $0["host"]?.stringValue ?? "" } == keys.map(\.name))
        zone.set(keys[0].name, MailboxDomainTests.txt, .txt([keys[0].value]))
        zone.set(keys[1].name, MailboxDomainTests.txt, .txt(["v=DKIM1; k=ed25519; p="]))
        let partly = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        let partlyOK = partly["dns_records"]?.arrayValue?.map { $0["ok"] }
        #expect(partlyOK == [.bool(true), .bool(false), .bool(true), .bool(false)])
        zone.set(keys[1].name, MailboxDomainTests.txt, .txt([keys[1].value]))
        zone.set("signed.test", MailboxDomainTests.txt, .txt([]))
        let published = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(published["verify_status"] == "verified", "verified for good")
        let publishedOK = published["dns_records"]?.arrayValue?.map { $0["ok"] }
        #expect(publishedOK == [.bool(false), .bool(false), .bool(true), .bool(true)])
        #expect(harness.unexpected.all.isEmpty)
    }
}
