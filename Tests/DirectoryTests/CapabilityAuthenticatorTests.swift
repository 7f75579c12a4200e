import AuthCrypto
import Directory
import JWT
import Testing

@Suite("Capability token as a bearer")
struct CapabilityAuthenticatorTests {
    static let now: Int64 = 1_700_000_000
    static let issuer = "https://issuer.test"
    static let keys: JWTKeySet = {
        let rsa = try! RSAPrivateKey.generate(bits: 2048)
        return try! JWTKeySet(
            keys: [JWTKey.hmac(kid: "h", secret: Array(0..<32)), JWTKey.rsa(kid: "r", privateKey: rsa)],
            activeHMAC: "h", activeRSA: "r")
    }()

    static func authenticator(_ directory: any AccountDirectory) -> CapabilityAuthenticator {
        CapabilityAuthenticator(
            keys: keys, issuer: issuer, audience: "api-service", lifetime: 120, directory: directory,
            clock: { now })
    }

    static func token(_ claims: CapabilityClaims, audience: String = "api-service", ttl: Int64 = 120) throws -> String {
        try keys.sign(
            claims.claims(issuer: issuer, audience: audience, issuedAt: now, ttl: ttl, jti: "j1"),
            for: CapabilityClaims.purpose)
    }

    @Test("a live inbox's token gives its account and mailbox; the claims are in the contract's order")
    func principal() async throws {
        let directory = FixedDirectory(domains: ["agents.test"], accounts: ["bot@agents.test": 500])
        let claims = CapabilityClaims(accountID: "acct-1", inbox: "bot@agents.test")
        #expect(
            claims.claims(issuer: Self.issuer, audience: "api-service", issuedAt: 1, ttl: 120, jti: "j").members.map(\.0)
                == ["iss", "sub", "iat", "exp", "jti", "pur", "aud", "inboxId", "scope"])
        let principal = try await Self.authenticator(directory).principal(
            for: Credentials(bearerToken: try Self.token(claims)))
        #expect(principal == Principal(accountID: "acct-1", mailbox: Recipient(address: "bot@agents.test", quota: 500)))
    }

    @Test("refused: another audience, a longer lifetime, another purpose's key, no inboxId, an inbox no longer local")
    func refusals() async throws {
        let directory = FixedDirectory(domains: ["agents.test"], accounts: ["bot@agents.test": 500])
        let authenticator = Self.authenticator(directory)
        let live = CapabilityClaims(accountID: "acct-1", inbox: "bot@agents.test")
        var noInbox = live.claims(issuer: Self.issuer, audience: "api-service", issuedAt: Self.now, ttl: 120, jti: "j")
        noInbox["inboxId"] = nil
        var unscoped = live.claims(issuer: Self.issuer, audience: "api-service", issuedAt: Self.now, ttl: 120, jti: "j")
        unscoped["scope"] = "mcp"
        let tokens = [
            try Self.token(live, audience: "other"),
            try Self.token(live, ttl: 121),
            try Self.keys.sign(
                live.claims(issuer: Self.issuer, audience: "api-service", issuedAt: Self.now, ttl: 120, jti: "j"),
                algorithm: .hs256),
            try Self.keys.sign(noInbox, for: .capability),
            try Self.keys.sign(unscoped, for: .capability),
            try Self.token(CapabilityClaims(accountID: "acct-2", inbox: "gone@agents.test")),
        ]
        for token in tokens {
            #expect(try await authenticator.principal(for: Credentials(bearerToken: token)) == nil)
        }
        #expect(try await authenticator.principal(for: Credentials(bearerToken: "not.a.token")) == nil)
    }

    @Test("a directory that cannot be read is an error, not a refusal")
    func storageError() async throws {
        let token = try Self.token(CapabilityClaims(accountID: "acct-1", inbox: "bot@down.test"))
        await #expect(throws: Unreadable.self) {
            try await Self.authenticator(FailingDirectory()).principal(for: Credentials(bearerToken: token))
        }
    }
}
