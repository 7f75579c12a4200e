import ComputePool
import CustomDomains
import DKIMKeys
import DNS
import PosternTestSupport
import Storage
import Testing

/// A claimed domain's DKIM keys, on each backend (`StorageBackend.allCases`): made when the domain is added,
/// their `_domainkey` records shown and looked up beside the claim's own, never a condition of its verification.
@Suite("Custom domains: the DKIM keys of a claimed domain")
struct CustomDomainSigningKeysTests {
    static let now: Int64 = 1_795_602_199

    /// Claims over `test` whose domains' keys are in its `dkim_keys`.
    static func domains(_ test: TestDatabase) throws -> (CustomDomains, DKIMKeyStore) {
        let store = try DKIMKeyStore(
            database: test.database, sealingSecret: "a-test-secret-of-more-than-16-bytes", clock: { Self.now })
        let keys = DKIMDomainKeys(store: store, pool: WorkerPool(threads: 1))
        return (CustomDomains(database: test.database, signingKeys: keys), store)
    }

    @Test("a record is published when the TXT carries each of its tags; whitespace, order and other tags aside")
    func publishedRecord() {
        let record = SigningKeyRecord(name: "s._domainkey.x.example", value: "v=DKIM1; k=ed25519; p=AbC+/9=")
        #expect(record.isPublished(as: "v=DKIM1; k=ed25519; p=AbC+/9="))
        #expect(record.isPublished(as: "v=DKIM1;k=ed25519;p=AbC+/9=;"))
        #expect(record.isPublished(as: "k=ed25519; t=s; v=DKIM1;\r\n\tp=AbC +/9="), "folded, reordered, t= added")
        #expect(!record.isPublished(as: "v=DKIM1; k=ed25519; p=AbD+/9="), "another key")
        #expect(!record.isPublished(as: "v=DKIM1; k=ed25519; p="), "a revoked key")
        #expect(!record.isPublished(as: "v=DKIM1; k=rsa; p=AbC+/9="), "another algorithm")
        #expect(!record.isPublished(as: "v=DKIM1; p=AbC+/9="), "k= missing")
        #expect(!record.isPublished(as: "V=DKIM1; K=ed25519; P=AbC+/9="), "tag names are case-sensitive")
        #expect(!record.isPublished(as: ""))
        #expect(!SigningKeyRecord(name: "s._domainkey.x.example", value: "").isPublished(as: ""), "no tags, no match")
    }

    @Test(
        "adding a domain makes its RSA and Ed25519 keys once; a second claim keeps them; a refused one makes none",
        arguments: StorageBackend.allCases)
    func keysOnAdd(_ backend: StorageBackend) async throws {
        let test = try CustomDomainsTests.database(backend)
        let (domains, store) = try Self.domains(test)
        #expect(try store.history(for: "keys.example").isEmpty)
        _ = try await domains.add("Keys.Example", for: CustomDomainsTests.ada, limit: 5, served: [], now: 100)
        let made = try store.history(for: "keys.example")
        #expect(made.map(\.algorithm) == [.rsaSHA256, .ed25519SHA256])
        let records = try await domains.signingKeyRecords(on: "KEYS.example")
        #expect(records.map(\.name) == made.map(\.txtRecordName))
        #expect(records.map(\.value) == made.map(\.txtRecordValue))
        #expect(records[0].name.hasPrefix("rsa-") && records[0].name.hasSuffix("._domainkey.keys.example"))
        #expect(records[0].value.hasPrefix("v=DKIM1; k=rsa; p="))
        #expect(records[1].value.hasPrefix("v=DKIM1; k=ed25519; p="))
        _ = try await domains.add("keys.example", for: CustomDomainsTests.pro, limit: 5, served: [], now: 100)
        #expect(try store.history(for: "keys.example").map(\.selector) == made.map(\.selector))
        await #expect(throws: DomainClaimError.taken) {
            try await domains.add(
                "served.example", for: CustomDomainsTests.ada, limit: 5, served: ["served.example"], now: 100)
        }
        await #expect(throws: DomainClaimError.invalidDomain) {
            try await domains.add("not a domain", for: CustomDomainsTests.ada, limit: 5, served: [], now: 100)
        }
        #expect(try store.history(for: "served.example").isEmpty)
        // Claims without the port (the directories' reader) make and show none.
        let reader = CustomDomains(database: test.database)
        _ = try await reader.add("plain.example", for: CustomDomainsTests.bob, limit: 5, served: [], now: 100)
        #expect(try await reader.signingKeyRecords(on: "keys.example").isEmpty)
        #expect(try store.history(for: "plain.example").isEmpty)
    }

    @Test(
        "the records are looked up: published only when the selector's TXT carries the key; verified without them",
        arguments: StorageBackend.allCases)
    func checkRecords(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let resolver = CustomDomainsTests.resolver(server)
        let test = try CustomDomainsTests.database(backend)
        let (domains, _) = try Self.domains(test)
        let claim = try await domains.add("dkim.example", for: CustomDomainsTests.ada, limit: 5, served: [], now: 100)
        zone.set("dkim.example", CustomDomainsTests.txt, .txt([claim.verifyToken]))
        let verified = try #require(
            try await domains.verify(
                id: claim.id, of: CustomDomainsTests.ada, now: 200, resolver: resolver, mxHost: "mx.postern.test"))
        #expect(verified.claim.isVerified, "ownership rests on the TXT token alone")
        let records = try await domains.signingKeyRecords(on: "dkim.example")
        let unpublished = try await domains.checkSigningKeyRecords(on: "dkim.example", resolver: resolver)
        #expect(unpublished.map(\.record) == records)
        #expect(unpublished.map(\.published) == [false, false] && unpublished.allSatisfy { $0.failure == nil })
        // The RSA record (longer than one 255-byte string) published as a provider splits it; the Ed25519 name holds
        // another key.
        let other = try await domains.add("other.example", for: CustomDomainsTests.bob, limit: 5, served: [], now: 100)
        let otherKeys = try await domains.signingKeyRecords(on: other.domain)
        #expect(records[0].value.utf8.count > 255)
        zone.set(records[0].name, CustomDomainsTests.txt, .txt(["v=spf1 -all", records[0].value]))
        zone.set(records[1].name, CustomDomainsTests.txt, .txt([otherKeys[1].value]))
        let checked = try await domains.checkSigningKeyRecords(on: "dkim.example", resolver: resolver)
        #expect(checked.map(\.published) == [true, false])
        zone.set(records[1].name, CustomDomainsTests.txt, .serverFailure)
        let failed = try await domains.checkSigningKeyRecords(on: "dkim.example", resolver: resolver)
        #expect(failed.map(\.published) == [true, false])
        #expect(failed.map(\.failure) == [nil, "SERVFAIL"])
        zone.set(records[1].name, CustomDomainsTests.txt, .txt([records[1].value]))
        #expect(
            try await domains.checkSigningKeyRecords(on: "dkim.example", resolver: resolver).map(\.published)
                == [true, true])
    }
}
