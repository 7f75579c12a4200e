import PosternTestSupport
import Testing

@testable import MailboxAccounts

@Suite("Mailbox rate limits with limits on and an injected clock")
struct MailboxRateLimitTests {
    @Test(
        "public requests: 8 per second per address, then 429 with Retry-After and RateLimit-*",
        arguments: StorageBackend.allCases)
    func publicLimit(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        for index in 0..<8 {
            let response = await harness.send(.GET, "/api/domains", remote: "203.0.113.5")
            #expect(response.status == 200)
            #expect(response.headers["RateLimit-Limit"] == "8")
            #expect(response.headers["RateLimit-Remaining"] == String(7 - index))
        }
        let refused = await harness.send(.GET, "/api/challenge", remote: "203.0.113.5")
        #expect(refused.status == 429)
        #expect(refused.body == Array(#"{"error":"rate_limit_exceeded"}"#.utf8))
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.headers["RateLimit-Limit"] == "8")
        #expect(refused.headers["RateLimit-Remaining"] == "0")
        #expect(refused.headers["RateLimit-Reset"] == "1")
        #expect(refused.headers["Cache-Control"] == "no-store")
        #expect(await harness.send(.GET, "/api/domains", remote: "203.0.113.6").status == 200)
        harness.clock.advance(milliseconds: 125)
        #expect(await harness.send(.GET, "/api/domains", remote: "203.0.113.5").status == 200)
        #expect(await harness.send(.GET, "/api/domains", remote: "203.0.113.5").status == 429)
    }

    @Test("IPv6 clients share one bucket per /64", arguments: StorageBackend.allCases)
    func ipv6Prefix(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        for index in 0..<8 {
            #expect(await harness.send(.GET, "/api/domains", remote: "2001:db8:0:1::\(index + 1)").status == 200)
        }
        #expect(await harness.send(.GET, "/api/domains", remote: "2001:db8:0:1:ffff::9").status == 429)
        #expect(await harness.send(.GET, "/api/domains", remote: "2001:db8:0:2::1").status == 200)
    }

    @Test(
        "a malformed free creation (400) gives its token back; a refused proof (403) does not",
        arguments: StorageBackend.allCases)
    func malformedKeepsAllowance(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        let remote = "198.51.100.30"
        for body in [
            #"{"address":"not an address","password":"secret1"}"#, #"{"address":"ok@mail.localhost","password":"123"}"#,
            "not json", #"{"address":"ok@mail.localhost","password":"secret1"}"#,
        ] {
            let response = await harness.send(.POST, "/api/accounts", json: body, remote: remote)
            #expect(response.status == 400, "\(body)")
        }
        let pow = try await harness.solvedChallenge(remote: remote)
        let created = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "kept@mail.localhost", pow: pow),
            remote: remote)
        #expect(created.status == 201)
        let next = try await harness.solvedChallenge(remote: remote)
        let refused = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "next@mail.localhost", pow: next),
            remote: remote)
        #expect(refused.status == 429)

        let other = "198.51.100.31"
        let wrongProof = await harness.send(
            .POST, "/api/accounts",
            json: MailboxHarness.createBody(address: "w@mail.localhost", pow: (String(repeating: "a", count: 32), "1")),
            remote: other)
        #expect(wrongProof.status == 403)
        let after = try await harness.solvedChallenge(remote: other)
        #expect(
            await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "w@mail.localhost", pow: after),
                remote: other
            ).status == 429)
    }

    @Test("free account creation: one per 8 seconds per address", arguments: StorageBackend.allCases)
    func freeCreation(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        let first = try await harness.solvedChallenge(remote: "198.51.100.20")
        let second = try await harness.solvedChallenge(remote: "198.51.100.20")
        let created = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "rl1@mail.localhost", pow: first),
            remote: "198.51.100.20")
        #expect(created.status == 201)
        #expect(created.headers["RateLimit-Limit"] == "1")
        let refused = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "rl2@mail.localhost", pow: second),
            remote: "198.51.100.20")
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "8")
        harness.clock.advance(seconds: 8)
        let later = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "rl2@mail.localhost", pow: second),
            remote: "198.51.100.20")
        #expect(later.status == 201)
    }

    @Test("Pro bearers get 20 per second and 8 creations per second", arguments: StorageBackend.allCases)
    func proLimits(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        let token = try await harness.proToken(email: "fast@example.com", maxAccounts: 50)
        harness.clock.advance(seconds: 10)
        for _ in 0..<20 {
            #expect(await harness.send(.GET, "/api/user/me", bearer: token, remote: "192.0.2.77").status == 200)
        }
        let refused = await harness.send(.GET, "/api/user/me", bearer: token, remote: "192.0.2.77")
        #expect(refused.status == 429)
        #expect(refused.headers["RateLimit-Limit"] == "20")
        for index in 0..<8 {
            let response = await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "p\(index)@pro.localhost", pow: nil),
                bearer: token, remote: "192.0.2.77")
            #expect(response.status == 201)
        }
        #expect(
            await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "p9@pro.localhost", pow: nil),
                bearer: token, remote: "192.0.2.77"
            ).status == 429)
    }

    /// Bearers that look like Pro API tokens but are not live ones: free text, and a well-formed token
    /// that was never stored.
    static let forgedAPITokens = ["tm_pro_garbage", MailboxTokens.newAPIToken().token]

    @Test(
        "a tm_pro_ bearer that is not a live token is limited like an anonymous client on public routes",
        arguments: StorageBackend.allCases)
    func forgedAPITokenOnPublicRoutes(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        for (offset, bearer) in Self.forgedAPITokens.enumerated() {
            let remote = "203.0.113.\(40 + offset)"
            let guess = #"{"address":"victim@mail.localhost","password":"guess-\#(offset)"}"#
            for index in 0..<8 {
                // Sign-in (password guessing) and an immediate route draw from the anonymous bucket.
                let response =
                    index.isMultiple(of: 2)
                    ? await harness.send(.POST, "/api/token", json: guess, bearer: bearer, remote: remote)
                    : await harness.send(.GET, "/api/domains", bearer: bearer, remote: remote)
                #expect(response.status == (index.isMultiple(of: 2) ? 401 : 200))
                #expect(response.headers["RateLimit-Limit"] == "8")
                #expect(response.headers["RateLimit-Remaining"] == String(7 - index))
            }
            let refused = await harness.send(.POST, "/api/token", json: guess, bearer: bearer, remote: remote)
            #expect(refused.status == 429)
            #expect(refused.error == "rate_limit_exceeded")
            #expect(refused.headers["RateLimit-Limit"] == "8")
            // The same bucket as the address's anonymous requests.
            #expect(await harness.send(.GET, "/api/challenge", remote: remote).status == 429)
        }
    }

    @Test(
        "a tm_pro_ bearer that is not a live token gets 401 invalid_or_expired_token at the public rate",
        arguments: StorageBackend.allCases)
    func forgedAPITokenOnAuthenticatedRoutes(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        let account = try await harness.createAccount("owned@mail.localhost")
        for (offset, bearer) in Self.forgedAPITokens.enumerated() {
            let remote = "203.0.113.\(50 + offset)"
            let targets = ["/api/user/me", "/api/user/accounts", "/api/user/tokens", "/api/accounts/\(account.id)"]
            for index in 0..<8 {
                let response = await harness.send(.GET, targets[index % targets.count], bearer: bearer, remote: remote)
                #expect(response.status == 401)
                #expect(response.body == Array(#"{"error":"invalid_or_expired_token"}"#.utf8))
                #expect(response.headers["RateLimit-Limit"] == "8")
                #expect(response.headers["RateLimit-Remaining"] == String(7 - index))
            }
            let refused = await harness.send(.GET, "/api/user/me", bearer: bearer, remote: remote)
            #expect(refused.status == 429)
            #expect(refused.headers["RateLimit-Limit"] == "8")
        }
    }

    @Test(
        "a tm_pro_ bearer that is not a live token does not buy the Pro account-creation bucket",
        arguments: StorageBackend.allCases)
    func forgedAPITokenOnAccountCreation(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        for (offset, bearer) in Self.forgedAPITokens.enumerated() {
            let remote = "198.51.100.\(60 + offset)"
            let first = await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "f\(offset)@pro.localhost", pow: nil),
                bearer: bearer, remote: remote)
            #expect(first.status == 401)
            #expect(first.error == "invalid_or_expired_token")
            #expect(first.headers["RateLimit-Limit"] == "1")
            let second = await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "g\(offset)@pro.localhost", pow: nil),
                bearer: bearer, remote: remote)
            #expect(second.status == 429)
            #expect(second.headers["Retry-After"] == "8")
            // The free creation bucket of the address is the one that was spent.
            let pow = try await harness.solvedChallenge(remote: "192.0.2.250")
            let anonymous = await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "h\(offset)@mail.localhost", pow: pow),
                remote: remote)
            #expect(anonymous.status == 429)
        }
    }

    @Test(
        "a live Pro API token keeps 20 per second and 8 creations per second; revoked, it is anonymous",
        arguments: StorageBackend.allCases)
    func liveAPITokenLimits(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        let jwt = try await harness.proToken(email: "api-rate@example.com", maxAccounts: 50)
        let made = await harness.send(.POST, "/api/user/tokens", json: #"{"name":"ci"}"#, bearer: jwt)
        try #require(made.status == 201)
        let token = made.string("token")
        harness.clock.advance(seconds: 10)
        let remote = "192.0.2.88"
        for index in 0..<20 {
            let response = await harness.send(.GET, "/api/user/me", bearer: token, remote: remote)
            #expect(response.status == 200)
            #expect(response.headers["RateLimit-Limit"] == "20")
            #expect(response.headers["RateLimit-Remaining"] == String(19 - index))
        }
        let refused = await harness.send(.GET, "/api/user/me", bearer: token, remote: remote)
        #expect(refused.status == 429)
        #expect(refused.headers["RateLimit-Limit"] == "20")
        for index in 0..<8 {
            let response = await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "t\(index)@pro.localhost", pow: nil),
                bearer: token, remote: remote)
            #expect(response.status == 201)
            #expect(response.headers["RateLimit-Limit"] == "8")
        }
        #expect(
            await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "t9@pro.localhost", pow: nil),
                bearer: token, remote: remote
            ).status == 429)
        // None of that was charged to the address's anonymous bucket.
        #expect(await harness.send(.GET, "/api/domains", remote: remote).headers["RateLimit-Remaining"] == "7")

        harness.clock.advance(seconds: 10)
        let revoke = await harness.send(.DELETE, "/api/user/tokens/\(made.string("id"))", bearer: jwt)
        #expect(revoke.status == 204)
        let revoked = await harness.send(.GET, "/api/user/me", bearer: token, remote: remote)
        #expect(revoked.status == 401)
        #expect(revoked.error == "invalid_or_expired_token")
        #expect(revoked.headers["RateLimit-Limit"] == "8")
    }

    @Test("X-Forwarded-For is believed only from a trusted proxy", arguments: StorageBackend.allCases)
    func forwardedFor(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend, trustedProxies: ["10.0.0.0/8"]) { $0.rateLimitsEnabled = true }
        for index in 0..<8 {
            let response = await harness.send(
                .GET, "/api/domains", remote: "10.1.1.1", headers: [("X-Forwarded-For", "198.51.100.\(index)")])
            #expect(response.status == 200)
        }
        // Eight different clients behind the proxy: the proxy's own address was not counted.
        #expect(await harness.send(.GET, "/api/domains", remote: "10.1.1.1").status == 200)
        // An untrusted peer cannot spread itself over forged addresses.
        for index in 0..<8 {
            _ = await harness.send(
                .GET, "/api/domains", remote: "192.0.2.200", headers: [("X-Forwarded-For", "198.18.0.\(index)")])
        }
        #expect(
            await harness.send(
                .GET, "/api/domains", remote: "192.0.2.200", headers: [("X-Forwarded-For", "198.18.1.1")]
            ).status
                == 429)
    }

    @Test("with limits off nothing is refused and no RateLimit headers are sent", arguments: StorageBackend.allCases)
    func off(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        for _ in 0..<50 {
            let response = await harness.send(.GET, "/api/domains")
            #expect(response.status == 200)
            #expect(response.headers["RateLimit-Limit"] == nil)
        }
    }
}
