import Directory
import JSON
import PosternTestSupport
import ServerKit
import Testing

@testable import MailboxAccounts

/// Mail.td Pro custom domains against a loopback DNS server whose zone each test writes.
@Suite("Mail.td Pro custom domains")
struct MailboxDomainTests {
    typealias Zone = LoopbackDNSServer.Zone

    static let txt: UInt16 = 16
    static let mx: UInt16 = 15

    /// A harness whose domain checks ask `server`, with `mx.postern.test` as the MX host.
    static func harness(_ server: LoopbackDNSServer) throws -> MailboxHarness {
        try MailboxHarness {
            $0.dnsResolver = server.address
            $0.mxHost = "mx.postern.test"
            $0.dnsTimeout = .milliseconds(300)
        }
    }

    struct Held: CustomDomainClaims {
        func holds(domain: String) async throws -> Bool { domain == "owner.example" }
    }

    @Test("a domain an owner holds for agent inboxes is 409; a Pro user's domain is reported held")
    func claims() async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try MailboxHarness {
            $0.dnsResolver = server.address
            $0.otherDomainClaims = Held()
        }
        let token = try await harness.proToken(email: "a@example.com")
        let held = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"Owner.Example"}"#, bearer: token)
        #expect(held.status == 409 && held.error == "domain_already_exists")
        #expect(await harness.send(.POST, "/api/user/domains", json: #"{"domain":"pro.example"}"#, bearer: token).status == 201)
        let claims = MailboxDomainClaims(database: harness.database)
        #expect(try await claims.holds(domain: "pro.example"))
        #expect(try await !claims.holds(domain: "owner.example"))
    }

    @Test("a domain an owner took between the first look and the insert is given up: 409, nothing listed")
    func racingClaim() async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let other = TakenMeanwhile()
        let harness = try MailboxHarness {
            $0.dnsResolver = server.address
            $0.otherDomainClaims = other
        }
        let token = try await harness.proToken(email: "r@example.com")
        let raced = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"race.example"}"#, bearer: token)
        #expect(raced.status == 409 && raced.error == "domain_already_exists")
        #expect(other.asked.withLock { $0 } == 2)
        #expect(await harness.send(.GET, "/api/user/domains", bearer: token)["domains"] == .array([]))
        #expect(try await !MailboxDomainClaims(database: harness.database).holds(domain: "race.example"))
    }

    @Test("create: 201 with the TXT token and the records to publish; listed pending; counted in /api/user/me")
    func create() async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(server)
        let token = try await harness.proToken(email: "d@example.com")
        let created = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"Example.COM."}"#, bearer: token)
        #expect(created.status == 201)
        #expect(created.string("domain") == "example.com")
        let verifyToken = created.string("verify_token")
        #expect(verifyToken.hasPrefix("postern-verify-") && verifyToken.count == 39)
        let records = created["dns_records"]?.arrayValue ?? []
        #expect(records.count == 2)
        #expect(records.first?["type"] == "TXT" && records.first?["value"] == .string(verifyToken))
        #expect(records.last?["type"] == "MX" && records.last?["value"] == "mx.postern.test")
        #expect(records.last?["priority"] == .int(10) && records.last?["host"] == "example.com")
        let list = await harness.send(.GET, "/api/user/domains", bearer: token)
        let domain = try #require(list["domains"]?.arrayValue?.first)
        #expect(domain["id"] == created["id"])
        #expect(domain["verify_status"] == "pending" && domain["verified_at"] == .null)
        #expect(domain["mx_configured"] == .bool(false))
        #expect(domain["created_at"] == .string(RFC3339.format(harness.clock.seconds)))
        #expect(await harness.send(.GET, "/api/user/me", bearer: token)["domain_count"] == .int(1))
    }

    @Test("refusals: not a domain 400, the service's own or another user's 409, past max_domains 403, no Pro 401")
    func refusals() async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try Self.harness(server)
        let token = try await harness.proToken(email: "a@example.com", maxDomains: 1)
        let other = try await harness.proToken(email: "b@example.com")
        for bad in ["localhost", "1.2.3.4", "not a domain", "-bad.com", "under_score.com", "", "a..com"] {
            let response = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"\#(bad)"}"#, bearer: token)
            #expect(response.status == 400 && response.error == "invalid_domain", "\(bad)")
        }
        #expect(await harness.send(.POST, "/api/user/domains", json: #"{}"#, bearer: token).error == "invalid_domain")
        let system = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"pro.localhost"}"#, bearer: token)
        #expect(system.status == 409 && system.error == "domain_already_exists")
        #expect(await harness.send(.POST, "/api/user/domains", json: #"{"domain":"a.test"}"#, bearer: token).status == 201)
        let taken = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"A.test"}"#, bearer: other)
        #expect(taken.status == 409 && taken.error == "domain_already_exists")
        let limit = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"b.test"}"#, bearer: token)
        #expect(limit.status == 403 && limit.error == "domain_limit_reached")
        let free = try await harness.createAccount("free@mail.localhost")
        #expect(await harness.send(.GET, "/api/user/domains", bearer: free.token).status == 401)
        #expect(await harness.send(.GET, "/api/user/domains").status == 401)
    }

    @Test("verify: pending until the TXT holds the token; then verified for good, with each record's ok")
    func verifyByTXT() async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(server)
        let token = try await harness.proToken(email: "v@example.com")
        let created = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"verify.test"}"#, bearer: token)
        let id = created.string("id")
        let pending = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(pending.status == 200)
        #expect(pending["verify_status"] == "pending")
        #expect(pending["txt_record"] == .bool(false) && pending["mx_record"] == .bool(false))
        #expect(pending.string("message") == "TXT record not found; MX record not found")
        zone.set("verify.test", Self.txt, .txt(["v=spf1 -all", created.string("verify_token")]))
        let verified = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(verified["verify_status"] == "verified")
        #expect(verified["txt_record"] == .bool(true) && verified["mx_record"] == .bool(false))
        #expect(verified["dns_records"]?.arrayValue?.map { $0["ok"] } == [.bool(true), .bool(false)])
        // The record goes away: still verified (ownership was shown once), and the MX state follows each check.
        zone.set("verify.test", Self.txt, .txt([]))
        zone.set("verify.test", Self.mx, .mx([.init(10, "MX.Postern.Test.")]))
        let again = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(again["verify_status"] == "verified" && again["mx_record"] == .bool(true))
        let listed = await harness.send(.GET, "/api/user/domains", bearer: token)["domains"]?.arrayValue?.first
        #expect(listed?["mx_configured"] == .bool(true))
        #expect(listed?["verified_at"] == .string(RFC3339.format(harness.clock.seconds)))
    }

    @Test("verify: an MX naming this server verifies too; one naming another host does not")
    func verifyByMX() async throws {
        let zone = Zone()
        zone.set("mx.test", Self.mx, .mx([.init(5, "mail.elsewhere.test")]))
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(server)
        let token = try await harness.proToken(email: "m@example.com")
        let id = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"mx.test"}"#, bearer: token).string("id")
        #expect(await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)["verify_status"] == "pending")
        zone.set("mx.test", Self.mx, .mx([.init(5, "mail.elsewhere.test"), .init(10, "mx.postern.test")]))
        let verified = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(verified["verify_status"] == "verified" && verified["mx_record"] == .bool(true))
        #expect(verified.string("message") == "TXT record not found")
    }

    @Test("verify: SERVFAIL or no answer in time is pending with a message, never an error")
    func lookupFailures() async throws {
        let zone = Zone()
        zone.set("fail.test", Self.txt, .serverFailure)
        zone.set("fail.test", Self.mx, .silence)
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(server)
        let token = try await harness.proToken(email: "f@example.com")
        let id = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"fail.test"}"#, bearer: token).string("id")
        let response = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(response.status == 200)
        #expect(response["verify_status"] == "pending")
        #expect(
            response.string("message")
                == "TXT lookup failed (SERVFAIL); try again; MX lookup failed (no answer in time); try again")
        #expect(harness.unexpected.all.isEmpty)
    }

    @Test("verify past the 7-day window is 410 domain_expired; delete is 204 then 404; another user's id is 404")
    func expiryAndDelete() async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try Self.harness(server)
        let token = try await harness.proToken(email: "e@example.com")
        let other = try await harness.proToken(email: "o@example.com")
        let id = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"old.test"}"#, bearer: token).string("id")
        #expect(await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: other).status == 404)
        #expect(await harness.send(.DELETE, "/api/user/domains/\(id)", bearer: other).status == 404)
        harness.clock.advance(7 * 24 * 3600 + 1)
        let expired = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(expired.status == 410 && expired.error == "domain_expired")
        #expect(await harness.send(.DELETE, "/api/user/domains/\(id)", bearer: token).status == 204)
        #expect(await harness.send(.DELETE, "/api/user/domains/\(id)", bearer: token).status == 404)
        #expect(await harness.send(.POST, "/api/user/domains/not-a-uuid/verify", bearer: token).status == 404)
        #expect(await harness.send(.GET, "/api/user/domains", bearer: token)["domains"] == .array([]))
    }
}

extension MailboxDomainTests {
    @Test("a verified domain is the owner's catch-all: every address there is local, and the owner creates accounts on it")
    func catchAll() async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(server)
        let token = try await harness.proToken(email: "c@example.com")
        let other = try await harness.proToken(email: "x@example.com")
        let directory = MailboxDirectory(database: harness.database, domains: ["mail.localhost"], catchAllQuota: 777)
        let created = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"catch.test"}"#, bearer: token)
        #expect(try await directory.resolve("anyone@catch.test") == .foreign, "pending: not ours yet")
        let pending = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "box@catch.test", pow: nil), bearer: token)
        #expect(pending.error == "invalid_domain")
        zone.set("catch.test", Self.txt, .txt([created.string("verify_token")]))
        _ = await harness.send(.POST, "/api/user/domains/\(created.string("id"))/verify", bearer: token)
        #expect(
            try await directory.resolve("Anyone@Catch.Test") == .local(Recipient(address: "anyone@catch.test", quota: 777)))
        let stranger = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "box@catch.test", pow: nil), bearer: other)
        #expect(stranger.error == "invalid_domain", "another Pro user cannot create accounts on it")
        let free = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "box@catch.test", pow: nil))
        #expect(free.status == 400)
        _ = try await harness.createProAccount("box@catch.test", bearer: token)
        #expect(
            try await directory.resolve("box@catch.test")
                == .local(Recipient(address: "box@catch.test", quota: MailboxQuotas().pro)))
        _ = await harness.send(.DELETE, "/api/user/domains/\(created.string("id"))", bearer: token)
        #expect(try await directory.resolve("anyone@catch.test") == .foreign, "deleted: mail for it is refused")
    }
}
