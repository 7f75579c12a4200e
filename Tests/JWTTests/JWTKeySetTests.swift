import AuthCrypto
import JWT
import Testing

@Suite("JWTKeySet signing and verification")
struct JWTKeySetTests {
    @Test("HS256, RS256 and EdDSA round trips keep claims and their order", arguments: purposeAlgorithms)
    func roundTrip(algorithm: JWTAlgorithm) throws {
        let set = try makeKeySet()
        let purpose = purpose(signedWith: algorithm)
        var original = claims(purpose: purpose)
        original["inboxId"] = "alice@agents.localhost"
        original["difficulty"] = 6
        let token = try set.sign(original, for: purpose)
        #expect(token.split(separator: ".").count == 3)
        let verified = try set.verify(token, policy: policy(purpose), now: now)
        #expect(verified == original)
        #expect(verified.pur == purpose.rawValue)
        #expect(verified.exp == now + 180)
    }

    @Test("standard claims carry iss, sub, iat, exp, jti (128-bit hex), pur in that order and verify")
    func standardClaims() throws {
        var standard = JWTClaims(issuer: issuer, subject: "acct_1", purpose: .capability, issuedAt: now, ttl: 3600)
        standard["inboxId"] = "bob@agents.localhost"
        #expect(standard.members.map(\.0) == ["iss", "sub", "iat", "exp", "jti", "pur", "inboxId"])
        #expect(standard.jti?.count == 32)
        #expect(standard.jti.flatMap(Hex.decode)?.count == 16)
        #expect(standard.exp == now + 3600)
        let other = JWTClaims(issuer: issuer, purpose: .session, issuedAt: now, ttl: 60)
        #expect(other.jti != standard.jti)
        #expect(other.sub == nil)
        let set = try makeKeySet()
        let verified = try set.verify(set.sign(standard, for: .capability), policy: policy(.capability), now: now)
        #expect(verified == standard)
    }

    @Test("the header is exactly {alg, typ:JWT, kid} in that order")
    func header() throws {
        let set = try makeKeySet()
        let token = try set.sign(claims(), algorithm: .hs256)
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"HS256","typ":"JWT","kid":"h1"}"#)
        let rsaToken = try set.sign(claims(), algorithm: .rs256)
        let rsaHeader = try #require(Base64URL.decode(String(rsaToken.split(separator: ".")[0])))
        #expect(String(decoding: rsaHeader, as: UTF8.self) == #"{"alg":"RS256","typ":"JWT","kid":"r1"}"#)
    }

    @Test("a token signed by another key set with the same kid is refused")
    func otherSecret() throws {
        let other = try JWTKeySet(
            keys: [JWTKey.hmac(kid: "h1", secret: [UInt8](repeating: 7, count: 32))], activeHMAC: "h1", activeRSA: nil)
        let token = try other.sign(claims(), algorithm: .hs256)
        let error = #expect(throws: JWTError.self) {
            try makeKeySet().verify(token, policy: policy(), now: now)
        }
        #expect(error?.code == .badSignature)
    }

    func expectRefusal(_ token: String, _ code: JWTError.Code, purpose: JWTPurpose = .challenge) throws {
        let set = try makeKeySet()
        let error = #expect(throws: JWTError.self) { try set.verify(token, policy: policy(purpose), now: now) }
        #expect(error?.code == code)
    }

    @Test("alg none and None are refused, with or without a signature")
    func algNone() throws {
        for alg in ["none", "None", "NONE"] {
            let header = #"{"alg":"\#(alg)","typ":"JWT","kid":"h1"}"#
            try expectRefusal(forgeUnsigned(header: header, payload: claims(), signature: ""), .badSignature)
            try expectRefusal(forgeUnsigned(header: header, payload: claims(), signature: "AAAA"), .unsupportedAlgorithm)
            try expectRefusal(forgeHMAC(header: header, payload: claims(), secret: hmacSecret), .unsupportedAlgorithm)
        }
    }

    @Test("an empty signature is refused for every algorithm", arguments: purposeAlgorithms)
    func emptySignature(algorithm: JWTAlgorithm) throws {
        let purpose = purpose(signedWith: algorithm)
        let token = try makeKeySet().sign(claims(purpose: purpose), for: purpose)
        let stripped = String(token[...token.lastIndex(of: ".")!])
        try expectRefusal(stripped, .badSignature, purpose: purpose)
    }

    @Test("HS256 signed with the RSA public key PEM as the secret is refused (key confusion)")
    func keyConfusion() throws {
        let publicPEM = Array(sharedRSAKey.publicKey.pem.utf8)
        let forged = forgeHMAC(header: #"{"alg":"HS256","typ":"JWT","kid":"r1"}"#, payload: claims(), secret: publicPEM)
        try expectRefusal(forged, .algorithmMismatch)
        // Also with the DER-ish modulus bytes as the secret.
        let forgedModulus = forgeHMAC(
            header: #"{"alg":"HS256","typ":"JWT","kid":"r1"}"#, payload: claims(), secret: sharedRSAKey.publicKey.modulus)
        try expectRefusal(forgedModulus, .algorithmMismatch)
    }

    @Test("RS256 header on the HMAC kid is refused")
    func rsHeaderOnHMACKey() throws {
        let set = try makeKeySet()
        let rsaToken = try set.sign(claims(), algorithm: .rs256)
        let parts = rsaToken.split(separator: ".").map(String.init)
        let swapped = b64(#"{"alg":"RS256","typ":"JWT","kid":"h1"}"#) + "." + parts[1] + "." + parts[2]
        try expectRefusal(swapped, .algorithmMismatch)
    }

    @Test(
        "unknown, missing and hostile kids are refused",
        arguments: [
            #"{"alg":"HS256","typ":"JWT","kid":"nope"}"#, #"{"alg":"HS256","typ":"JWT"}"#,
            #"{"alg":"HS256","typ":"JWT","kid":"../../../../etc/passwd"}"#,
            #"{"alg":"HS256","typ":"JWT","kid":"h1\u0000"}"#, #"{"alg":"HS256","typ":"JWT","kid":""}"#,
            #"{"alg":"HS256","typ":"JWT","kid":"\#(String(repeating: "h", count: 600))"}"#,
        ])
    func unknownKid(header: String) throws {
        try expectRefusal(forgeHMAC(header: header, payload: claims(), secret: hmacSecret), .unknownKey)
    }

    // Found by the jwt fuzzer: the kid lookup went through a [String: Entry], whose keys compare by
    // Unicode canonical equivalence, so a header kid with KELVIN SIGN found the key "K1".
    @Test("a kid canonically equivalent to a key's kid, but not equal to it, is unknown")
    func canonicallyEquivalentKid() throws {
        let set = try JWTKeySet(keys: [JWTKey.hmac(kid: "K1", secret: hmacSecret)], activeHMAC: "K1", activeRSA: nil)
        let lookalike = forgeHMAC(header: #"{"alg":"HS256","typ":"JWT","kid":"K1"}"#, payload: claims(), secret: hmacSecret)
        let error = #expect(throws: JWTError.self) { try set.verify(lookalike, policy: policy(), now: now) }
        #expect(error?.code == .unknownKey)
        let exact = forgeHMAC(header: #"{"alg":"HS256","typ":"JWT","kid":"K1"}"#, payload: claims(), secret: hmacSecret)
        #expect(try set.verify(exact, policy: policy(), now: now).iss == issuer)
    }

    @Test("a kid that is not a string is malformed")
    func kidNotString() throws {
        let header = #"{"alg":"HS256","typ":"JWT","kid":["h1"]}"#
        try expectRefusal(forgeHMAC(header: header, payload: claims(), secret: hmacSecret), .malformed)
    }

    @Test("a crit header is refused even when correctly signed")
    func crit() throws {
        let header = #"{"alg":"HS256","typ":"JWT","kid":"h1","crit":["exp"]}"#
        try expectRefusal(forgeHMAC(header: header, payload: claims(), secret: hmacSecret), .criticalHeader)
    }

    @Test("a correctly signed forged header with a wrong typ is refused; jku/jwk are ignored")
    func otherHeaders() throws {
        let typ = #"{"alg":"HS256","typ":"JOSE+JSON","kid":"h1"}"#
        try expectRefusal(forgeHMAC(header: typ, payload: claims(), secret: hmacSecret), .malformed)
        let jku = #"{"alg":"HS256","typ":"JWT","kid":"h1","jku":"http://evil/jwks.json"}"#
        let token = forgeHMAC(header: jku, payload: claims(), secret: hmacSecret)
        #expect(try makeKeySet().verify(token, policy: policy(), now: now).pur == "challenge")
    }

    @Test("a token of another purpose is refused")
    func wrongPurpose() throws {
        let token = try makeKeySet().sign(claims(purpose: .session), algorithm: .hs256)
        try expectRefusal(token, .wrongPurpose, purpose: .challenge)
        try expectRefusal(token, .wrongPurpose, purpose: .mailbox)
        for near in ["Session", "session ", "sessio"] {
            var claims = claims(purpose: .session)
            claims["pur"] = .string(near)
            try expectRefusal(try makeKeySet().sign(claims, algorithm: .hs256), .wrongPurpose, purpose: .session)
        }
    }

    @Test("exp: within 30 s leeway accepted, beyond refused; the leeway is capped at 30 s")
    func expiry() throws {
        let set = try makeKeySet()
        let token = try set.sign(claims(ttl: 100), algorithm: .hs256)
        #expect(try set.verify(token, policy: policy(), now: now + 100).exp == now + 100)
        #expect(try set.verify(token, policy: policy(), now: now + 129).exp == now + 100)
        for late in [now + 130, now + 10_000] {
            let error = #expect(throws: JWTError.self) { try set.verify(token, policy: policy(), now: late) }
            #expect(error?.code == .expired)
        }
        let capped = #expect(throws: JWTError.self) {
            try set.verify(token, policy: policy(), now: now + 200, leeway: 3600)
        }
        #expect(capped?.code == .expired)
        let strict = #expect(throws: JWTError.self) {
            try set.verify(token, policy: policy(), now: now + 100, leeway: 0)
        }
        #expect(strict?.code == .expired)
    }

    @Test("iat or nbf in the future beyond the leeway is refused")
    func future() throws {
        let set = try makeKeySet()
        let token = try set.sign(claims(issuedAt: now + 60), algorithm: .hs256)
        #expect(throws: JWTError.self) { try set.verify(token, policy: policy(), now: now) }
        #expect(try set.verify(token, policy: policy(), now: now + 31).iat == now + 60)
        var notBefore = claims()
        notBefore["nbf"] = .int(now + 100)
        let nbfToken = try set.sign(notBefore, algorithm: .hs256)
        let error = #expect(throws: JWTError.self) { try set.verify(nbfToken, policy: policy(), now: now) }
        #expect(error?.code == .notYetValid)
    }

    @Test("iss must match exactly: prefixes, suffixes and case differences are refused")
    func issuerExact() throws {
        let set = try makeKeySet()
        for wrong in ["http://localhost:8080.evil", "http://localhost:808", "HTTP://localhost:8080", "http://localhost:8080/"] {
            var forged = claims()
            forged["iss"] = .string(wrong)
            let token = try set.sign(forged, algorithm: .hs256)
            let error = #expect(throws: JWTError.self) { try set.verify(token, policy: policy(), now: now) }
            #expect(error?.code == .wrongIssuer)
        }
        let good = try set.sign(claims(), algorithm: .hs256)
        let error = #expect(throws: JWTError.self) {
            try set.verify(
                good, policy: JWTPolicy(purpose: .challenge, issuer: "http://localhost:8080x", maximumLifetime: 3600),
                now: now)
        }
        #expect(error?.code == .wrongIssuer)
    }

    @Test("missing exp, iat or jti, or exp of the wrong type, is refused", arguments: ["exp", "iat", "jti"])
    func missingClaims(name: String) throws {
        let set = try makeKeySet()
        var partial = claims()
        partial[name] = nil
        let token = try set.sign(partial, algorithm: .hs256)
        let error = #expect(throws: JWTError.self) { try set.verify(token, policy: policy(), now: now) }
        #expect(error?.code == .missingClaim)
        var wrongType = claims()
        wrongType[name] = name == "jti" ? .int(1) : .string("\(now + 100)")
        let wrongToken = try set.sign(wrongType, algorithm: .hs256)
        #expect(throws: JWTError.self) { try set.verify(wrongToken, policy: policy(), now: now) }
    }

    @Test(
        "2 or 4 segments and other malformed shapes are refused",
        arguments: [
            "", ".", "..", "...", "a.b", "a.b.c.d", "a.b.c.", ".b.c", "a..c", "a.b.c", "eyJ.eyJ.AAAA", "***.***.***",
            "eyJhbGciOiJIUzI1NiJ9.e30.AAAA=",
        ])
    func malformedShapes(token: String) throws {
        let error = #expect(throws: JWTError.self) {
            try makeKeySet().verify(token, policy: policy(), now: now)
        }
        #expect(error != nil)
    }

    @Test("a valid token with a fourth segment or a dropped payload is refused")
    func segmentCounts() throws {
        let set = try makeKeySet()
        let token = try set.sign(claims(), algorithm: .hs256)
        try expectRefusal(token + ".AAAA", .malformed)
        let parts = token.split(separator: ".").map(String.init)
        try expectRefusal(parts[0] + "." + parts[2], .malformed)
        try expectRefusal(parts[0] + "." + parts[1], .malformed)
    }

    @Test("100 KB of dots, and any input over 8 KiB, is refused before it is parsed")
    func hugeInput() throws {
        let set = try makeKeySet()
        let dots = String(repeating: ".", count: 100_000)
        let big = try set.sign(claims(), algorithm: .hs256) + String(repeating: "A", count: 9000)
        for token in [dots, big] {
            let error = #expect(throws: JWTError.self) { try set.verify(token, policy: policy(), now: now) }
            #expect(error?.code == .malformed && error?.reason == "token too long")
        }
    }

    @Test("a tampered payload fails the signature check", arguments: purposeAlgorithms)
    func tampered(algorithm: JWTAlgorithm) throws {
        let set = try makeKeySet()
        let purpose = purpose(signedWith: algorithm)
        let token = try set.sign(claims(purpose: purpose), for: purpose)
        var parts = token.split(separator: ".").map(String.init)
        var elevated = claims(purpose: purpose)
        elevated["sub"] = "admin"
        parts[1] = Base64URL.encode(elevated.json.serialize())
        try expectRefusal(parts.joined(separator: "."), .badSignature, purpose: purpose)
    }

    @Test("a verify-only RSA key verifies but does not sign; sign without an active key fails")
    func verifyOnly() throws {
        let signer = try makeKeySet()
        let token = try signer.sign(claims(purpose: .capability), algorithm: .rs256)
        let verifier = try JWTKeySet(
            keys: [JWTKey.rsa(kid: "r1", publicKey: sharedRSAKey.publicKey)], activeHMAC: nil, activeRSA: nil)
        #expect(try verifier.verify(token, policy: policy(.capability), now: now).pur == "capability")
        let error = #expect(throws: JWTError.self) { try verifier.sign(claims(), algorithm: .rs256) }
        #expect(error?.code == .noSigningKey)
        #expect(throws: JWTError.self) {
            try JWTKeySet(keys: [JWTKey.rsa(kid: "r1", publicKey: sharedRSAKey.publicKey)], activeHMAC: nil, activeRSA: "r1")
        }
    }

    @Test("key construction refuses short secrets, bad kids, duplicates and mismatched active kids")
    func keyConstruction() throws {
        #expect(throws: JWTError.self) { try JWTKey.hmac(kid: "h", secret: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: JWTError.self) { try JWTKey.hmac(kid: "../x", secret: hmacSecret) }
        #expect(throws: JWTError.self) { try JWTKey.hmac(kid: String(repeating: "a", count: 65), secret: hmacSecret) }
        let key = try JWTKey.hmac(kid: "h1", secret: hmacSecret)
        #expect(throws: JWTError.self) { try JWTKeySet(keys: [key, key], activeHMAC: "h1", activeRSA: nil) }
        #expect(throws: JWTError.self) { try JWTKeySet(keys: [key], activeHMAC: nil, activeRSA: "h1") }
        #expect(!"\(key)".contains("0001020304"))
        #expect("\(key.material)" == "hmac(redacted)")
    }

    @Test("error descriptions never contain the token or the kid")
    func errorTexts() throws {
        let secretKid = "attacker-controlled-kid"
        let token = forgeHMAC(header: #"{"alg":"HS256","typ":"JWT","kid":"\#(secretKid)"}"#, payload: claims(), secret: hmacSecret)
        let error = #expect(throws: JWTError.self) {
            try makeKeySet().verify(token, policy: policy(), now: now)
        }
        #expect(error.map { !$0.description.contains(secretKid) && !$0.description.contains(token) } == true)
    }
}
