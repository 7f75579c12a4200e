import HTTP1
import Owners
import PosternTestSupport
import Testing

/// `/owner/domains` publishes every record sending needs (the TXT token, MX, SPF, the DKIM keys, DMARC), each with what
/// the last verification found, and keeps those states across a reload.
@Suite("Owners: SPF and DMARC on the custom domains page; each row's last state kept")
struct OwnerDomainRecordStatesTests {
    /// The row of `kind` (`token`, `mx`, `spf`, `dkim`, `dmarc`), each row's HTML, in order.
    static func rows(_ kind: String, _ response: HTTPResponse) -> [String] {
        OwnerDomainPagesTests.text(response).components(separatedBy: "<tr class=\"\(kind)\">").dropFirst().map {
            String($0.prefix { $0 != "\n" })
        }
    }

    /// `found`, `not found`, or `` (never looked up) of a row.
    static func mark(_ row: String?) -> String {
        guard let row else { return "missing" }
        if row.contains("<span class=\"ok\">found</span>") { return "found" }
        if row.contains("<span class=\"bad\">not found</span>") { return "not found" }
        return ""
    }

    static func marks(_ response: HTTPResponse) -> [String] {
        ["token", "mx", "spf", "dkim", "dmarc"].flatMap { kind in rows(kind, response).map(mark) }
    }

    @Test(
        "SPF and DMARC rows with their values; verify marks each; a reload shows every row's last state",
        arguments: StorageBackend.allCases)
    func statesKept(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let (harness, csrf) = try await OwnerDomainKeysPageTests.signedIn(backend, server)
        let added = await harness.send(.POST, "/owner/domains", form: ["domain": "Sends.Example", "csrf_token": csrf])
        #expect(added.status.code == 201)
        let spf = try #require(Self.rows("spf", added).first)
        #expect(spf.contains(">sends.example<") && spf.contains("<code class=\"spf-value\">v=spf1 mx -all</code>"))
        let dmarc = try #require(Self.rows("dmarc", added).first)
        #expect(dmarc.contains("<code class=\"dmarc-name\">_dmarc.sends.example</code>"))
        #expect(dmarc.contains("v=DMARC1; p=quarantine; rua=mailto:postmaster@sends.example"))
        #expect(Self.marks(added) == ["", "", "", "", "", ""], "nothing looked up yet")

        let ownerID = try #require(try await harness.service.owners.list().first?.id)
        let domain = try #require(try await harness.service.domains.domains(ownerID: ownerID).first)
        let keys = try await harness.service.domains.signingKeyRecords(domain)
        zone.set("sends.example", 16, .txt([domain.verifyToken, "v=spf1 mx -all"]))
        zone.set("_dmarc.sends.example", 16, .txt(["v=DMARC1; p=none"]))
        zone.set(keys[0].name, 16, .txt([keys[0].value]))
        let verified = await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf])
        let expected = ["found", "not found", "found", "found", "not found", "found"]
        #expect(Self.marks(verified) == expected)

        // A reload: every row as the last verification found it (before, only the MX kept its state).
        #expect(Self.marks(await harness.send(.GET, "/owner/domains")) == expected)

        // The next verification finds SPF gone and the MX there: the page says so, and keeps saying so.
        zone.set("sends.example", 16, .txt([domain.verifyToken]))
        zone.set("sends.example", 15, .mx([.init(10, "mx.postern.test")]))
        _ = await harness.send(.POST, "/owner/domains/\(domain.id)/verify", form: ["csrf_token": csrf])
        #expect(
            Self.marks(await harness.send(.GET, "/owner/domains"))
                == ["found", "found", "not found", "found", "not found", "found"])
    }
}
