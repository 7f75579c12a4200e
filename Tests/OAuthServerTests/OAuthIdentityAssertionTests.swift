import AuthCrypto
import JSON
import JWT
import OAuthServer
import Testing

@Suite("Identity assertions (ID-JAG): each check refuses with the code that names it")
struct OAuthIdentityAssertionTests {
    static let now: Int64 = 1_700_000_000
    static let idp = ExchangeFixture.idp

    static func verify(
        _ token: String, keys: PublishedKeySet, client: String = "agent-1", now: Int64 = now
    ) throws(JWTError) -> OAuthIdentityAssertion.Verified {
        try OAuthIdentityAssertion.verify(
            token, keys: keys, issuer: idp, audience: issuer, clientID: client, now: now, maxLifetime: 600)
    }

    @Test("a good assertion reads its issuer, subject, jti, exp, scope, resource and may_act")
    func good() throws {
        let signer = try IDJAGSigner()
        let token = try signer.assertion(
            client: "agent-1", now: Self.now,
            ["jti": "jag-1", "may_act": .object([("sub", .string("agent-2")), ("iss", .string(issuer))])])
        #expect(OAuthIdentityAssertion.claimedIssuer(token) == Self.idp)
        let verified = try Self.verify(token, keys: signer.published)
        #expect(verified.issuer == Self.idp && verified.subject == "alice" && verified.jti == "jag-1")
        #expect(verified.expiresAt == Self.now + 300 && verified.permissions == .all)
        #expect(verified.resource == jmapResource)
        #expect(verified.mayAct == .init(subject: "agent-2", issuer: issuer))
        let bare = try Self.verify(
            try signer.assertion(client: "agent-1", now: Self.now, ["scope": nil, "resource": nil]), keys: signer.published)
        #expect(bare.permissions == nil && bare.resource == nil && bare.mayAct == nil)
    }

    @Test("adversarial assertions are each refused with the check that failed")
    func adversarial() throws {
        let signer = try IDJAGSigner()
        let stranger = try IDJAGSigner()
        let otherKid = try IDJAGSigner(kid: "other")
        let now = Self.now
        let cases: [(String, String, JWTError.Code)] = [
            ("another key, same kid", try stranger.assertion(client: "agent-1", now: now), .badSignature),
            ("an unknown kid", try otherKid.assertion(client: "agent-1", now: now), .unknownKey),
            ("typ JWT", try signer.assertion(client: "agent-1", now: now, typ: "JWT"), .malformed),
            ("typ at+jwt", try signer.assertion(client: "agent-1", now: now, typ: "at+jwt"), .malformed),
            ("another issuer", try signer.assertion(issuer: "https://evil.example", client: "agent-1", now: now), .wrongIssuer),
            ("no sub", try signer.assertion(client: "agent-1", now: now, ["sub": nil]), .missingClaim),
            ("another audience", try signer.assertion(client: "agent-1", now: now, ["aud": "https://x.example"]), .wrongAudience),
            ("no aud", try signer.assertion(client: "agent-1", now: now, ["aud": nil]), .missingClaim),
            ("aud not strings", try signer.assertion(client: "agent-1", now: now, ["aud": .array([.int(1)])]), .malformed),
            ("another client", try signer.assertion(client: "agent-2", now: now), .wrongAuthorizedParty),
            ("no client_id", try signer.assertion(client: "agent-1", now: now, ["client_id": nil]), .wrongAuthorizedParty),
            ("no exp", try signer.assertion(client: "agent-1", now: now, ["exp": nil]), .missingClaim),
            ("expired", try signer.assertion(client: "agent-1", now: now, ["exp": .int(now - 30)]), .expired),
            ("an hour ahead", try signer.assertion(client: "agent-1", now: now, ["exp": .int(now + 3_600)]), .lifetimeTooLong),
            ("iat ahead", try signer.assertion(client: "agent-1", now: now, ["iat": .int(now + 120)]), .notYetValid),
            ("nbf ahead", try signer.assertion(client: "agent-1", now: now, ["nbf": .int(now + 120)]), .notYetValid),
            ("no jti", try signer.assertion(client: "agent-1", now: now, ["jti": nil]), .missingClaim),
            ("scope admin", try signer.assertion(client: "agent-1", now: now, ["scope": "admin"]), .wrongScope),
            ("may_act a string", try signer.assertion(client: "agent-1", now: now, ["may_act": "agent-2"]), .malformed),
        ]
        for (name, token, code) in cases {
            let error = try #require(throws: JWTError.self, "\(name)") { try Self.verify(token, keys: signer.published) }
            #expect(error.code == code, "\(name): \(error)")
        }
        // The skew: 29 s past exp still verifies, 30 s does not (above).
        let late = try signer.assertion(client: "agent-1", now: now, ["exp": .int(now - 29)])
        #expect(try Self.verify(late, keys: signer.published).expiresAt == now - 29)
    }
}
