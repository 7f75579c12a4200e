import AuthCrypto
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import MailboxAccounts

/// Mailbox and Pro JWTs with a valid signature by one of the server's own keys that are still refused: signed by
/// the RSA key (both are HS256), or living longer than the token TTL (issue 32).
@Suite("Mailbox tokens: algorithm and lifetime of each purpose")
struct MailboxTokenPolicyTests {
    static func claims(_ harness: MailboxHarness, subject: String, purpose: String, lifetime: Int64) -> JWTClaims {
        let now = harness.clock.seconds
        return JWTClaims([
            ("iss", "http://postern.test"), ("sub", .string(subject)), ("iat", .int(now)),
            ("exp", .int(now + lifetime)), ("jti", "policy-test"), ("pur", .string(purpose)), ("ver", 0),
        ])
    }

    @Test(
        "A mailbox JWT signed with the server's RSA key (RS256) is refused: mailbox tokens are HS256",
        arguments: StorageBackend.allCases)
    func mailboxSignedWithRSA(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("policy@mail.localhost")
        let claims = Self.claims(harness, subject: account.id, purpose: "mailbox", lifetime: 60)
        let control = try harness.keys.sign(claims, algorithm: .hs256)
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: control).status == 200)

        let rsa = try harness.keys.sign(claims, algorithm: .rs256)
        let refused = await harness.send(.GET, "/api/accounts/\(account.id)", bearer: rsa)
        #expect(refused.status == 401)
        #expect(refused.error == "invalid_or_expired_token")
    }

    @Test(
        "A mailbox JWT whose exp is further than the token TTL (7 days) from its iat is refused",
        arguments: StorageBackend.allCases)
    func mailboxLivingTooLong(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("longlived@mail.localhost")
        let week: Int64 = 7 * 24 * 3600
        let longest = try harness.keys.sign(
            Self.claims(harness, subject: account.id, purpose: "mailbox", lifetime: week), algorithm: .hs256)
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: longest).status == 200)

        for lifetime: Int64 in [week + 1, 10 * 365 * 86_400] {
            let tooLong = try harness.keys.sign(
                Self.claims(harness, subject: account.id, purpose: "mailbox", lifetime: lifetime), algorithm: .hs256)
            #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: tooLong).status == 401)
        }
    }

    @Test(
        "A Pro JWT signed with the RSA key, or living past the token TTL, is refused",
        arguments: StorageBackend.allCases)
    func proTokens(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let genuine = try await harness.proToken(email: "policy@example.com")
        let payload = try #require(Base64URL.decode(String(genuine.split(separator: ".")[1])))
        let subject = try #require(try JSONValue.parse(payload)["sub"]?.stringValue)
        let week: Int64 = 7 * 24 * 3600
        let control = try harness.keys.sign(
            Self.claims(harness, subject: subject, purpose: "pro", lifetime: week), algorithm: .hs256)
        #expect(await harness.send(.GET, "/api/user/me", bearer: control).status == 200)

        let rsa = try harness.keys.sign(
            Self.claims(harness, subject: subject, purpose: "pro", lifetime: 60), algorithm: .rs256)
        #expect(await harness.send(.GET, "/api/user/me", bearer: rsa).status == 401)
        let tooLong = try harness.keys.sign(
            Self.claims(harness, subject: subject, purpose: "pro", lifetime: week + 1), algorithm: .hs256)
        #expect(await harness.send(.GET, "/api/user/me", bearer: tooLong).status == 401)
    }
}
