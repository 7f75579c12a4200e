import JWT

/// The checks of a `private_key_jwt` client assertion (RFC 7523 sections 2.2 and 3), pure: the client's keys, the
/// audiences this server answers to and the time are given; the caller then records the `jti` (single use on every
/// instance) until ``Verified/expiresAt``.
public enum OAuthClientAssertion {
    /// What a verified assertion leaves to check.
    public struct Verified: Sendable, Equatable {
        /// `jti`: refused a second time until ``expiresAt``.
        public let jti: String
        /// `exp`, Unix seconds.
        public let expiresAt: Int64

        /// What an assertion left to check (tests compare with it).
        public init(jti: String, expiresAt: Int64) {
            self.jti = jti
            self.expiresAt = expiresAt
        }
    }

    /// The clock skew allowed on `exp`, `iat` and `nbf`, seconds.
    public static let skew: Int64 = 30
    /// The longest `jti` kept, in bytes.
    public static let maximumJTILength = 256

    /// Verifies `assertion` as `clientID`'s.
    ///
    /// Checks, in order: the signature with the client's keys (``PublishedKeySet/verify(_:)``: RS256, ES256 or EdDSA,
    /// never `none` or HS*, the key found by `kid`, never taken from the token); `iss` and `sub` both exactly the
    /// client id; `aud` (a string or an array of strings) naming one of `audiences` (the token endpoint or the
    /// issuer); `exp` present, not past (`skew` allowed) and at most `maxLifetime` seconds ahead; `iat`, when
    /// present, neither in the future nor older than `maxLifetime`; `nbf`, when present, not in the future; `jti`
    /// a string of 1 to ``maximumJTILength`` bytes.
    /// - Throws: `JWTError`: `.unknownKey` (no key of that `kid`: the caller may fetch a `jwks_uri` again, once),
    ///   `.malformed`, `.criticalHeader`, `.unsupportedAlgorithm`, `.algorithmMismatch`, `.badSignature`,
    ///   `.wrongIssuer`, `.missingClaim`, `.wrongAudience`, `.expired`, `.notYetValid`, `.lifetimeTooLong`.
    public static func verify(
        _ assertion: String, keys: PublishedKeySet, clientID: String, audiences: [String], now: Int64,
        maxLifetime: Int64
    ) throws(JWTError) -> Verified {
        let claims = try keys.verify(assertion)
        guard let issuer = claims["iss"]?.stringValue, issuer.utf8.elementsEqual(clientID.utf8) else {
            throw JWTError(.wrongIssuer, "iss is not the client id")
        }
        guard let subject = claims["sub"]?.stringValue, subject.utf8.elementsEqual(clientID.utf8) else {
            throw JWTError(.wrongIssuer, "sub is not the client id")
        }
        let named = try Self.audiences(of: claims)
        guard named.contains(where: audiences.contains) else {
            throw JWTError(.wrongAudience, "aud names neither the token endpoint nor the issuer")
        }
        guard let expValue = claims["exp"] else { throw JWTError(.missingClaim, "exp is missing") }
        guard let exp = expValue.intValue else { throw JWTError(.malformed, "exp is not an integer") }
        guard exp > now - skew else { throw JWTError(.expired, "the assertion has expired") }
        guard exp <= now + maxLifetime + skew else {
            throw JWTError(.lifetimeTooLong, "exp is further ahead than an assertion may live")
        }
        if let iatValue = claims["iat"] {
            guard let iat = iatValue.intValue else { throw JWTError(.malformed, "iat is not an integer") }
            guard iat <= now + skew else { throw JWTError(.notYetValid, "iat is in the future") }
            guard iat >= now - maxLifetime - skew else { throw JWTError(.expired, "iat is too old") }
        }
        if let nbfValue = claims["nbf"] {
            guard let nbf = nbfValue.intValue else { throw JWTError(.malformed, "nbf is not an integer") }
            guard nbf <= now + skew else { throw JWTError(.notYetValid, "nbf is in the future") }
        }
        guard let jti = claims["jti"]?.stringValue else { throw JWTError(.missingClaim, "jti is missing") }
        guard (1...maximumJTILength).contains(jti.utf8.count) else {
            throw JWTError(.malformed, "jti is not 1 to 256 bytes")
        }
        return Verified(jti: jti, expiresAt: exp)
    }

    /// The audiences `aud` names: a string, or an array of strings (RFC 7519 section 4.1.3).
    /// - Throws: `JWTError` `.missingClaim` without `aud`, `.malformed` for anything else.
    static func audiences(of claims: JWTClaims) throws(JWTError) -> [String] {
        switch claims["aud"] {
        case nil: throw JWTError(.missingClaim, "aud is missing")
        case .string(let audience)?: return [audience]
        case .array(let values)?:
            let named = values.compactMap(\.stringValue)
            guard named.count == values.count else { throw JWTError(.malformed, "aud is not a string or strings") }
            return named
        default: throw JWTError(.malformed, "aud is not a string or strings")
        }
    }

    /// The `sub` of `assertion` read without checking anything (the client it claims to be, to find its keys by);
    /// nil when it is not a compact JWS with a JSON object payload holding a string `sub`. Never trust it further.
    public static func claimedClient(_ assertion: String) -> String? {
        OAuthJWTPayload.read(assertion)?["sub"]?.stringValue
    }
}
