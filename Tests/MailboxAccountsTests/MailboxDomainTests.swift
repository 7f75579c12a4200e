import CustomDomains
import DNS
import Directory
import JSON
import PosternTestSupport
import ServerKit
import Storage
import Testing
import Time

@testable import MailboxAccounts

/// Mail.td Pro custom domains against a loopback DNS server whose zone each test writes.
@Suite("Mail.td Pro custom domains")
struct MailboxDomainTests {
    typealias Zone = LoopbackDNSServer.Zone

    static let txt: UInt16 = 16
    static let mx: UInt16 = 15

    /// A harness whose domain checks ask `server`, with `mx.postern.test` as the MX host.
    static func harness(_ backend: StorageBackend, _ server: LoopbackDNSServer) throws -> MailboxHarness {
        try MailboxHarness(backend, dns: server) {
            $0.mxHost = "mx.postern.test"
            $0.otherServedDomains = ["agents.localhost"]
        }
    }

    /// An owner (of agent inboxes), holder of claims in the same table as Pro users'.
    static func owner(_ harness: MailboxHarness, id: String = "o-owner") async throws -> DomainHolder {
        _ = try await harness.database.write { connection in
            try connection.run(
                "INSERT INTO owners (id, email, password_hash, created_at) VALUES (?, ?, '', 0)",
                [.text(id), .text(id + "@example.com")])
        }
        return .owner(id)
    }

    /// The owner's claim on `domain`, verified through `zone` and `server`.
    static func ownerVerifies(
        _ domain: String, _ owner: DomainHolder, _ harness: MailboxHarness, _ zone: Zone, _ server: LoopbackDNSServer
    ) async throws {
        let claims = CustomDomains(database: harness.database)
        let claim = try await claims.add(domain, for: owner, limit: 5, served: [], now: harness.clock.seconds)
        zone.set(domain, txt, .txt([claim.verifyToken]))
        let resolver = DNSResolver(server: DNSServerAddress(server.address)!, timeout: .milliseconds(300))
        let verified = try await claims.verify(
            id: claim.id, of: owner, now: harness.clock.seconds, resolver: resolver, mxHost: "mx.postern.test")
        #expect(verified?.claim.isVerified == true)
    }

    @Test(
        "a domain an owner holds verified for agent inboxes is 409; a Pro user's domain is reported held once verified",
        arguments: StorageBackend.allCases)
    func claims(_ backend: StorageBackend) async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let owner = try await Self.owner(harness)
        try await Self.ownerVerifies("owner.example", owner, harness, zone, server)
        let token = try await harness.proToken(email: "a@example.com")
        let held = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"Owner.Example"}"#, bearer: token)
        #expect(held.status == 409 && held.error == "domain_already_exists")
        let pro = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"pro.example"}"#, bearer: token)
        #expect(pro.status == 201)
        let claims = CustomDomains(database: harness.database)
        #expect(try await claims.verifiedClaim(on: "pro.example") == nil, "pending holds nothing")
        zone.set("pro.example", Self.txt, .txt([pro.string("verify_token")]))
        _ = await harness.send(.POST, "/api/user/domains/\(pro.string("id"))/verify", bearer: token)
        #expect(try await claims.verifiedClaim(on: "pro.example")?.holder.kind == .proUser)
        #expect(try await claims.verifiedClaim(on: "owner.example")?.holder == owner)
        // An owner verifies a domain the Pro user has pending: the Pro user's claim goes; a verified one stays.
        _ = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"pending.example"}"#, bearer: token)
        try await Self.ownerVerifies("pending.example", owner, harness, zone, server)
        await #expect(throws: DomainClaimError.taken) {
            try await claims.add("pro.example", for: owner, limit: 5, served: [], now: harness.clock.seconds)
        }
        let listed = await harness.send(.GET, "/api/user/domains", bearer: token)["domains"]?.arrayValue
        #expect(listed?.map { $0["domain"] } == ["pro.example"])
    }

    @Test(
        "a domain an owner verified while the Pro user's claim was pending is given up: 409, nothing listed",
        arguments: StorageBackend.allCases)
    func racingClaim(_ backend: StorageBackend) async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let token = try await harness.proToken(email: "r@example.com")
        let pending = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"race.example"}"#, bearer: token)
        #expect(pending.status == 201)
        try await Self.ownerVerifies("race.example", try await Self.owner(harness), harness, zone, server)
        let verify = await harness.send(.POST, "/api/user/domains/\(pending.string("id"))/verify", bearer: token)
        #expect(verify.status == 404, "the claim went with the owner's verify")
        let raced = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"race.example"}"#, bearer: token)
        #expect(raced.status == 409 && raced.error == "domain_already_exists")
        #expect(await harness.send(.GET, "/api/user/domains", bearer: token)["domains"] == .array([]))
        #expect(try await harness.database.read {
            try $0.query("SELECT 1 FROM custom_domain_claims WHERE pro_user_id IS NOT NULL", [])
        }.isEmpty)
    }

    @Test(
        "create: 201 with the TXT token and the records to publish; listed pending; counted in /api/user/me",
        arguments: StorageBackend.allCases)
    func create(_ backend: StorageBackend) async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
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

    @Test(
        "refusals: not a domain 400, the server's own (Mail.td's or the agents') or one the user claims already 409, past max_domains 403, no Pro 401",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let token = try await harness.proToken(email: "a@example.com", maxDomains: 1)
        let other = try await harness.proToken(email: "b@example.com")
        for bad in ["localhost", "1.2.3.4", "not a domain", "-bad.com", "under_score.com", "", "a..com"] {
            let response = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"\#(bad)"}"#, bearer: token)
            #expect(response.status == 400 && response.error == "invalid_domain", "\(bad)")
        }
        #expect(await harness.send(.POST, "/api/user/domains", json: #"{}"#, bearer: token).error == "invalid_domain")
        for served in ["pro.localhost", "agents.localhost"] {
            let system = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"\#(served)"}"#, bearer: token)
            #expect(system.status == 409 && system.error == "domain_already_exists", "\(served)")
        }
        #expect(await harness.send(.POST, "/api/user/domains", json: #"{"domain":"a.test"}"#, bearer: token).status == 201)
        let twice = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"A.test"}"#, bearer: token)
        #expect(twice.status == 409 && twice.error == "domain_already_exists")
        let pendingElsewhere = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"A.test"}"#, bearer: other)
        #expect(pendingElsewhere.status == 201, "a pending claim blocks nobody")
        let limit = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"b.test"}"#, bearer: token)
        #expect(limit.status == 403 && limit.error == "domain_limit_reached")
        let free = try await harness.createAccount("free@mail.localhost")
        #expect(await harness.send(.GET, "/api/user/domains", bearer: free.token).status == 401)
        #expect(await harness.send(.GET, "/api/user/domains").status == 401)
    }

    @Test(
        "verify: pending until the TXT holds the token; then verified for good, with each record's ok",
        arguments: StorageBackend.allCases)
    func verifyByTXT(_ backend: StorageBackend) async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
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

    @Test(
        "verify: an MX naming this server proves nothing (it is every user's); only the claim's own TXT token does",
        arguments: StorageBackend.allCases)
    func mxIsNotProof(_ backend: StorageBackend) async throws {
        let zone = Zone()
        zone.set("mx.test", Self.mx, .mx([.init(5, "mail.elsewhere.test"), .init(10, "mx.postern.test")]))
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let token = try await harness.proToken(email: "m@example.com")
        let id = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"mx.test"}"#, bearer: token).string("id")
        let checked = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(checked["verify_status"] == "pending" && checked["mx_record"] == .bool(true))
        #expect(checked.string("message") == "TXT record not found")
        let listed = await harness.send(.GET, "/api/user/domains", bearer: token)["domains"]?.arrayValue?.first
        #expect(listed?["verify_status"] == "pending" && listed?["mx_configured"] == .bool(true))
        let directory = MailboxDirectory(
            database: harness.database, domains: ["mail.localhost"], claims: CustomDomains(database: harness.database))
        #expect(try await directory.resolve("reset@mx.test") == .foreign, "no catch-all on an MX alone")
    }

    @Test(
        "a domain another user only has pending can be claimed; the first to verify wins and the other claim is gone",
        arguments: StorageBackend.allCases)
    func firstToVerifyWins(_ backend: StorageBackend) async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try MailboxHarness(backend, dns: server, otherDomainMailboxes: [LeftInbox()]) {
            $0.mxHost = "mx.postern.test"
        }
        let owner = try await Self.owner(harness)
        let claims = CustomDomains(database: harness.database)
        let owners = try await claims.add("contested.test", for: owner, limit: 5, served: [], now: harness.clock.seconds)
        let squatter = try await harness.proToken(email: "s@example.com")
        let holder = try await harness.proToken(email: "h@example.com")
        let squat = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"contested.test"}"#, bearer: squatter)
        let claim = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"contested.test"}"#, bearer: holder)
        #expect(squat.status == 201 && claim.status == 201)
        #expect(squat.string("verify_token") != claim.string("verify_token"))
        zone.set("contested.test", Self.txt, .txt([claim.string("verify_token")]))
        let won = await harness.send(.POST, "/api/user/domains/\(claim.string("id"))/verify", bearer: holder)
        #expect(won["verify_status"] == "verified")
        #expect(try await claims.claim(id: owners.id, of: owner) == nil, "the owner's pending claim is gone too")
        #expect(await harness.send(.GET, "/api/user/domains", bearer: squatter)["domains"] == .array([]))
        #expect(await harness.send(.POST, "/api/user/domains/\(squat.string("id"))/verify", bearer: squatter).status == 404)
        let again = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"contested.test"}"#, bearer: squatter)
        #expect(again.status == 409 && again.error == "domain_already_exists")
        // An owner's inbox left at an address there keeps its mail under it: no second mailbox at it.
        let left = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "left@contested.test", pow: nil),
            bearer: holder)
        #expect(left.status == 409 && left.error == "address_taken")
        _ = try await harness.createProAccount("box@contested.test", bearer: holder)
    }

    @Test(
        "verify: SERVFAIL or no answer in time is pending with a message, never an error",
        arguments: StorageBackend.allCases)
    func lookupFailures(_ backend: StorageBackend) async throws {
        let zone = Zone()
        zone.set("fail.test", Self.txt, .serverFailure)
        zone.set("fail.test", Self.mx, .silence)
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
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

    @Test(
        "verify past the 7-day window is 410 domain_expired and deletes the claim; delete is 204 then 404; another user's id is 404",
        arguments: StorageBackend.allCases)
    func expiryAndDelete(_ backend: StorageBackend) async throws {
        let server = LoopbackDNSServer(zone: { _, _ in .noSuchName })
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let token = try await harness.proToken(email: "e@example.com", maxDomains: 2)
        let other = try await harness.proToken(email: "o@example.com")
        let id = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"old.test"}"#, bearer: token).string("id")
        _ = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"listed.test"}"#, bearer: token)
        #expect(await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: other).status == 404)
        #expect(await harness.send(.DELETE, "/api/user/domains/\(id)", bearer: other).status == 404)
        harness.clock.advance(7 * 24 * 3600 + 1)
        let expired = await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token)
        #expect(expired.status == 410 && expired.error == "domain_expired")
        #expect(await harness.send(.POST, "/api/user/domains/\(id)/verify", bearer: token).status == 404, "deleted")
        #expect(await harness.send(.GET, "/api/user/domains", bearer: token)["domains"] == .array([]))
        // Neither lapsed claim counts against max_domains of 2, nor stands in the way of the same domain.
        let fresh = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"old.test"}"#, bearer: token)
        #expect(fresh.status == 201)
        #expect(await harness.send(.POST, "/api/user/domains", json: #"{"domain":"listed.test"}"#, bearer: token).status == 201)
        #expect(await harness.send(.DELETE, "/api/user/domains/\(fresh.string("id"))", bearer: token).status == 204)
        #expect(await harness.send(.DELETE, "/api/user/domains/\(fresh.string("id"))", bearer: token).status == 404)
        #expect(await harness.send(.POST, "/api/user/domains/not-a-uuid/verify", bearer: token).status == 404)
    }
}

/// The owners' side with an inbox left at one address (the domain was an owner's before).
struct LeftInbox: CustomDomainMailboxes {
    var holderKind: DomainHolder.Kind { .owner }
    func hasMailbox(at address: String) async throws -> Bool { address == "left@contested.test" }
    func hasMailboxes(holderID: String, on domain: String, connection: any SQLConnection) throws -> Bool { false }
}

extension MailboxDomainTests {
    @Test(
        "a verified domain is the owner's catch-all: every address there is local, and the owner creates accounts on it",
        arguments: StorageBackend.allCases)
    func catchAll(_ backend: StorageBackend) async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let token = try await harness.proToken(email: "c@example.com")
        let other = try await harness.proToken(email: "x@example.com")
        let ownerID = await harness.send(.GET, "/api/user/me", bearer: token).string("id")
        let directory = MailboxDirectory(
            database: harness.database, domains: ["mail.localhost"], catchAllQuota: 777,
            claims: CustomDomains(database: harness.database))
        let created = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"catch.test"}"#, bearer: token)
        #expect(try await directory.resolve("anyone@catch.test") == .foreign, "pending: not ours yet")
        let pending = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "box@catch.test", pow: nil), bearer: token)
        #expect(pending.error == "invalid_domain")
        zone.set("catch.test", Self.txt, .txt([created.string("verify_token")]))
        _ = await harness.send(.POST, "/api/user/domains/\(created.string("id"))/verify", bearer: token)
        #expect(
            try await directory.resolve("Anyone@Catch.Test")
                == .local(Recipient(address: "anyone@catch.test", quota: 777, holderID: ownerID)))
        let stranger = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "box@catch.test", pow: nil), bearer: other)
        #expect(stranger.error == "invalid_domain", "another Pro user cannot create accounts on it")
        let free = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "box@catch.test", pow: nil))
        #expect(free.status == 400)
        let boxID = try await harness.createProAccount("box@catch.test", bearer: token)
        #expect(
            try await directory.resolve("box@catch.test")
                == .local(Recipient(address: "box@catch.test", quota: MailboxQuotas().pro, accountID: boxID, holderID: ownerID)))
        let inUse = await harness.send(.DELETE, "/api/user/domains/\(created.string("id"))", bearer: token)
        #expect(inUse.status == 409 && inUse.error == "domain_in_use", "accounts remain on it")
        #expect(
            try await directory.resolve("anyone@catch.test")
                == .local(Recipient(address: "anyone@catch.test", quota: 777, holderID: ownerID)))
        let accountID = try #require(try await harness.database.read {
            try $0.query("SELECT id FROM mailbox_accounts WHERE address = 'box@catch.test'", []).first?.text("id")
        })
        #expect(await harness.send(.DELETE, "/api/user/accounts/\(accountID)", bearer: token).status == 204)
        #expect(await harness.send(.DELETE, "/api/user/domains/\(created.string("id"))", bearer: token).status == 204)
        #expect(try await directory.resolve("anyone@catch.test") == .foreign, "deleted: mail for it is refused")
    }

    @Test(
        "an account left on a domain its user no longer holds verified is not local, even once another user verifies it",
        arguments: StorageBackend.allCases)
    func accountFollowsTheClaim(_ backend: StorageBackend) async throws {
        let zone = Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let harness = try Self.harness(backend, server)
        let first = try await harness.proToken(email: "first@example.com")
        let second = try await harness.proToken(email: "second@example.com")
        let directory = MailboxDirectory(
            database: harness.database, domains: ["mail.localhost"], catchAllQuota: 777,
            claims: CustomDomains(database: harness.database))
        let claim = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"moved.test"}"#, bearer: first)
        zone.set("moved.test", Self.txt, .txt([claim.string("verify_token")]))
        _ = await harness.send(.POST, "/api/user/domains/\(claim.string("id"))/verify", bearer: first)
        let firstID = await harness.send(.GET, "/api/user/me", bearer: first).string("id")
        let secondID = await harness.send(.GET, "/api/user/me", bearer: second).string("id")
        let resetID = try await harness.createProAccount("reset@moved.test", bearer: first)
        #expect(
            try await directory.resolve("reset@moved.test")
                == .local(
                    Recipient(address: "reset@moved.test", quota: MailboxQuotas().pro, accountID: resetID, holderID: firstID)))
        // The first user's claim goes (as one deleted before this release left its accounts), the second proves it.
        _ = try await harness.database.write {
            try $0.run("DELETE FROM custom_domain_claims WHERE id = ?", [.text(claim.string("id"))])
        }
        #expect(try await directory.resolve("reset@moved.test") == .foreign)
        let taken = await harness.send(.POST, "/api/user/domains", json: #"{"domain":"moved.test"}"#, bearer: second)
        zone.set("moved.test", Self.txt, .txt([taken.string("verify_token")]))
        let verified = await harness.send(.POST, "/api/user/domains/\(taken.string("id"))/verify", bearer: second)
        #expect(verified["verify_status"] == "verified")
        #expect(try await directory.resolve("reset@moved.test") == .foreign, "the first user's account gets nothing")
        #expect(
            try await directory.resolve("other@moved.test")
                == .local(Recipient(address: "other@moved.test", quota: 777, holderID: secondID)))
    }
}
