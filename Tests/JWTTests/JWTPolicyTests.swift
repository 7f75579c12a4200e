import AuthCrypto
import JSON
import JWT
import Testing

/// What a verification policy adds to the signature check (issue 32): the purpose's algorithm, the purpose's
/// longest lifetime, and a single-string audience.
@Suite("JWTPolicy: algorithm, lifetime and audience of a purpose")
struct JWTPolicyTests {
    @Test("each purpose is bound to the algorithm Postern mints it with (CONTRACT 1.1-1.4, 2.1, 3)")
    func purposeTable() {
        let table = Dictionary(uniqueKeysWithValues: JWTPurpose.allCases.map { ($0.rawValue, $0.algorithm) })
        #expect(
            table == [
                "challenge": .hs256, "session": .hs256, "mailbox": .hs256, "pro": .hs256, "capability": .rs256,
                "remote-login": .rs256, "oauth-access": .edDSA,
            ])
    }

    @Test(
        "a token signed by the server's key of another algorithm is refused for every purpose",
        arguments: JWTPurpose.allCases)
    func otherAlgorithm(purpose: JWTPurpose) throws {
        let set = try makeKeySet()
        let own = try set.sign(claims(purpose: purpose), for: purpose)
        #expect(try set.verify(own, policy: policy(purpose), now: now).pur == purpose.rawValue)
        for other in JWTAlgorithm.allCases where other != purpose.algorithm {
            // Correctly signed by the other key, with the typ this purpose expects: only the algorithm is wrong.
            let kid = ["HS256": "h1", "RS256": "r1", "EdDSA": "e1", "ES256": "p1"][other.rawValue]!
            let header = #"{"alg":"\#(other.rawValue)","typ":"\#(purpose.tokenType)","kid":"\#(kid)"}"#
            let crossed: String
            switch other {
            case .hs256: crossed = forgeHMAC(header: header, payload: claims(purpose: purpose), secret: hmacSecret)
            case .rs256: crossed = try forgeRS256(header: header, payload: claims(purpose: purpose))
            case .edDSA: crossed = try forgeEdDSA(header: header, payload: claims(purpose: purpose))
            case .es256: crossed = try forgeES256(header: header, payload: claims(purpose: purpose))
            }
            let error = #expect(throws: JWTError.self) { try set.verify(crossed, policy: policy(purpose), now: now) }
            #expect(error?.code == .wrongAlgorithm, "\(purpose) signed with \(other)")
        }
    }

    @Test("the algorithm is refused before the signature is looked at: no RSA work for an HS256 purpose")
    func algorithmBeforeSignature() throws {
        let garbage = forgeUnsigned(
            header: #"{"alg":"RS256","typ":"JWT","kid":"r1"}"#, payload: claims(purpose: .session),
            signature: Base64URL.encode([UInt8](repeating: 0, count: 256)))
        let error = #expect(throws: JWTError.self) {
            try makeKeySet().verify(garbage, policy: policy(.session), now: now)
        }
        #expect(error?.code == .wrongAlgorithm)
    }

    @Test("sign(_:for:) signs with the purpose's algorithm and refuses claims of another purpose")
    func signForPurpose() throws {
        let set = try makeKeySet()
        for purpose in JWTPurpose.allCases {
            let token = try set.sign(claims(purpose: purpose), for: purpose)
            let header = try JSONValue.parse(try #require(Base64URL.decode(String(token.split(separator: ".")[0]))))
            #expect(header["alg"]?.stringValue == purpose.algorithm.rawValue)
        }
        let error = #expect(throws: JWTError.self) { try set.sign(claims(purpose: .session), for: .capability) }
        #expect(error?.code == .wrongPurpose)
    }

    @Test("exp - iat up to the lifetime is accepted; one second more, or an overflowing span, is refused")
    func lifetime() throws {
        let set = try makeKeySet()
        let exact = try set.sign(claims(ttl: 180), algorithm: .hs256)
        #expect(try set.verify(exact, policy: policy(lifetime: 180), now: now).exp == now + 180)
        let longer = try set.sign(claims(ttl: 181), algorithm: .hs256)
        let error = #expect(throws: JWTError.self) { try set.verify(longer, policy: policy(lifetime: 180), now: now) }
        #expect(error?.code == .lifetimeTooLong)
        // An old iat does not help: the span counts, not the time left.
        let stale = try set.sign(claims(ttl: 3600, issuedAt: now - 3500), algorithm: .hs256)
        let staleError = #expect(throws: JWTError.self) {
            try set.verify(stale, policy: policy(lifetime: 180), now: now)
        }
        #expect(staleError?.code == .lifetimeTooLong)
        var extreme = claims()
        extreme["iat"] = .int(Int64.min)
        extreme["exp"] = .int(Int64.max)
        let overflow = try set.sign(extreme, algorithm: .hs256)
        let overflowError = #expect(throws: JWTError.self) {
            try set.verify(overflow, policy: policy(lifetime: .max), now: now)
        }
        #expect(overflowError?.code == .lifetimeTooLong)
    }

    @Test("a policy audience takes one equal string only: arrays, other strings, other types and absence are refused")
    func audience() throws {
        let set = try makeKeySet()
        let expected = policy(.capability, audience: "api-service")
        func token(_ aud: JSONValue?) throws -> String {
            var claims = claims(purpose: .capability)
            claims["aud"] = aud
            return try set.sign(claims, for: .capability)
        }
        #expect(try set.verify(try token("api-service"), policy: expected, now: now)["aud"] == "api-service")
        let refused: [JSONValue?] = [
            ["api-service"], ["api-service", "other"], [], "other", "API-SERVICE", "api-service ", 1, .null, nil,
        ]
        for aud in refused {
            let error = #expect(throws: JWTError.self, "aud \(String(describing: aud))") {
                try set.verify(try token(aud), policy: expected, now: now)
            }
            #expect(error?.code == .wrongAudience, "aud \(String(describing: aud))")
        }
    }

    @Test("a token carrying aud is refused where the policy names no audience")
    func unexpectedAudience() throws {
        let set = try makeKeySet()
        var claims = claims(purpose: .session)
        claims["aud"] = "api-service"
        let error = #expect(throws: JWTError.self) {
            try set.verify(try set.sign(claims, for: .session), policy: policy(.session), now: now)
        }
        #expect(error?.code == .wrongAudience)
    }

    @Test("a policy scope takes one equal string only; a token carrying scope is refused where the policy names none")
    func scope() throws {
        let set = try makeKeySet()
        var expected = policy(.capability)
        expected.scope = "jmap"
        func token(_ scope: JSONValue?) throws -> String {
            var claims = claims(purpose: .capability)
            claims["scope"] = scope
            return try set.sign(claims, for: .capability)
        }
        #expect(try set.verify(try token("jmap"), policy: expected, now: now)["scope"] == "jmap")
        for scope: JSONValue? in [["jmap"], "JMAP", "jmap ", "mcp", 1, .null, nil] {
            let error = #expect(throws: JWTError.self, "scope \(String(describing: scope))") {
                try set.verify(try token(scope), policy: expected, now: now)
            }
            #expect(error?.code == .wrongScope, "scope \(String(describing: scope))")
        }
        let unscoped = #expect(throws: JWTError.self) {
            try set.verify(try token("jmap"), policy: policy(.capability), now: now)
        }
        #expect(unscoped?.code == .wrongScope)
    }

    @Test("typed claims: read after the policy passed; a missing claim the type requires is refused")
    func typedClaims() throws {
        struct Named: JWTTypedClaims {
            static let purpose = JWTPurpose.session
            let name: String
            init(verified claims: JWTClaims) throws(JWTError) {
                guard let name = claims["name"]?.stringValue else { throw JWTError(.missingClaim, "name") }
                self.name = name
            }
        }
        let set = try makeKeySet()
        var named = claims(purpose: .session)
        named["name"] = "ada"
        #expect(try set.verify(try set.sign(named, for: .session), as: Named.self, policy: policy(.session), now: now).name == "ada")
        let missing = #expect(throws: JWTError.self) {
            try set.verify(try set.sign(claims(purpose: .session), for: .session), as: Named.self, policy: policy(.session), now: now)
        }
        #expect(missing?.code == .missingClaim)
        let expired = #expect(throws: JWTError.self) {
            try set.verify(try set.sign(named, for: .session), as: Named.self, policy: policy(.session), now: now + 7200)
        }
        #expect(expired?.code == .expired)
    }
}
