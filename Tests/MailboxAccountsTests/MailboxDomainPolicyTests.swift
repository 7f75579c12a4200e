import CustomDomains
import JSON
import PosternTestSupport
import Testing

@testable import MailboxAccounts
@testable import MailboxRoutes

/// What the Pro dashboard shows of a custom domain: the API's records and the SPF and DMARC records sending needs,
/// each with the state the last verification kept (the dashboard reads them through
/// ``MailboxService/domains(proUserID:)``, so a reload shows each row's last state). The API's `dns_records` keep their
/// shape.
@Suite("Mail.td Pro custom domains: SPF, DMARC and every record's last state")
struct MailboxDomainPolicyTests {
    @Test(
        "verify keeps each record's state; the dashboard's listing has them, SPF and DMARC after the API's records",
        arguments: StorageBackend.allCases)
    func statesKept(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try MailboxDomainKeysTests.harness(backend, server)
        let token = try await harness.proToken(email: "p@example.com")
        let created = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"Policy.Test"}"#, bearer: token)
        #expect(created.status == 201)
        #expect(created["dns_records"]?.arrayValue?.count == 4, "the API's records: TXT, MX, two DKIM")
        let proID = try #require(try await harness.service.accounts.listProUsers().first?.id)

        let before = try #require(try await harness.service.accounts.domains(proUserID: proID).first)
        #expect(before.policies.map(\.host) == ["policy.test", "_dmarc.policy.test"])
        #expect(
            before.policies.map(\.value)
                == ["v=spf1 mx -all", "v=DMARC1; p=quarantine; rua=mailto:postmaster@policy.test"])
        #expect((before.records + before.policies).allSatisfy { $0.ok == nil }, "nothing looked up yet")

        let dkim = before.records[2]
        zone.set("policy.test", 16, .txt([created.string("verify_token"), "v=spf1 include:relay.example -all"]))
        zone.set(dkim.host, 16, .txt([dkim.value]))
        let verified = await harness.send(.POST, "/api/user/domains/\(created.string("id"))/verify", bearer: token)
        #expect(verified["verify_status"] == "verified")
        #expect(verified["dns_records"]?.arrayValue?.count == 4, "the API's shape is unchanged")

        let after = try #require(try await harness.service.accounts.domains(proUserID: proID).first)
        #expect(after.records.map(\.ok) == [true, false, true, false])
        #expect(after.policies.map(\.ok) == [true, false])
        #expect(after.claim.recordStates?.spf == true && after.claim.recordStates?.dmarc == false)
    }
}
