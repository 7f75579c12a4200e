import DKIMKeys
import HTTP1
import Owners
import PosternTestSupport
import Testing

/// The DKIM records on `/owner/domains`: one `_domainkey` TXT row per key beside the TXT and MX, marked found or not
/// by a verification that does not need them.
@Suite("Owners: DKIM records on the custom domains page")
struct OwnerDomainKeysPageTests {
    /// The DKIM rows of a page, in order: each row's HTML.
    static func keyRows(_ response: HTTPResponse) -> [String] {
        OwnerDomainPagesTests.text(response).components(separatedBy: "<tr class=\"dkim\">").dropFirst().map { row in
            String(row.prefix { $0 != "\n" })
        }
    }

    /// Owner ada signed in, `/owner/domains` routed, domains checked against `server` with DKIM keys made for them;
    /// the harness and the page's CSRF token.
    static func signedIn(
        _ backend: StorageBackend, _ server: LoopbackDNSServer
    ) async throws -> (harness: OwnersHarness, csrf: String) {
        let harness = try OwnersHarness(backend, dkim: true, dns: server) { $0.mxHost = "mx.postern.test" }
        OwnerDomainPagesTests.pages(harness).register(into: &harness.router)
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = try await harness.signIn("ada@example.com", "correct horse")
        return (harness, try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/domains"))))
    }

    @Test(
        "a domain added shows its keys' records; verify marks each published or not and verifies on the token alone",
        arguments: StorageBackend.allCases)
    func keyRecords(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let (harness, csrf) = try await Self.signedIn(backend, server)
        #expect(Self.keyRows(await harness.send(.GET, "/owner/domains")).isEmpty, "no domain, no DKIM rows")

        let added = await harness.send(.POST, "/owner/domains", form: ["domain": "Signed.Example", "csrf_token": csrf])
        #expect(added.status.code == 201)
        let keys = try #require(harness.dkimKeys).history(for: "signed.example")
        #expect(keys.map(\.algorithm) == [.rsaSHA256, .ed25519SHA256], "made when the domain was added")
        let rows = Self.keyRows(added)
        #expect(rows.count == 2)
        for (row, key) in zip(rows, keys) {
            #expect(row.contains("<code class=\"dkim-name\">\(key.txtRecordName)</code>"))
            #expect(row.contains("<code class=\"dkim-value\">\(key.txtRecordValue)</code>"))
            #expect(!row.contains("<span"), "nothing looked up yet")
        }
        let ownerID = try #require(try await harness.service.owners.list().first?.id)
        let domain = try #require(try await harness.service.domains.domains(ownerID: ownerID).first)

        zone.set("signed.example", 16, .txt([domain.verifyToken]))
        let verified = await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf])
        #expect(OwnerDomainPagesTests.text(verified).contains("signed.example is verified."))
        #expect(Self.keyRows(verified).allSatisfy { $0.contains("<span class=\"bad\">not found</span>") })
        #expect(Self.keyRows(verified).count == 2)

        zone.set(keys[0].txtRecordName, 16, .txt([keys[0].txtRecordValue]))
        let partly = Self.keyRows(
            await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf]))
        #expect(partly.count == 2)
        #expect(partly.first?.contains("<span class=\"ok\">found</span>") == true)
        #expect(partly.last?.contains("<span class=\"bad\">not found</span>") == true)
        #expect(try await harness.service.domains.domains(ownerID: ownerID).first?.verifiedAt != nil)
    }
}
