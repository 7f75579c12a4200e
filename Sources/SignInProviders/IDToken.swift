import AuthCrypto
import JSON
import JWT

/// What an id_token must be to sign someone in: from the provider that was asked, for this client, in answer to this
/// login transaction (its `nonce`).
public struct IDTokenExpectation: Sendable, Equatable {
    /// The provider's issuer, exactly as its discovery document writes it.
    public var issuer: String
    /// The client id the provider issued to this server.
    public var clientID: String
    /// The nonce the login transaction sent in the authorization request.
    public var nonce: String

    /// The clock skew allowed either way on `exp`, `iat` and `nbf`, in seconds.
    public static let skew: Int64 = 60

    /// Creates an expectation.
    public init(issuer: String, clientID: String, nonce: String) {
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
    }
}

/// A verified id_token: who the provider says signed in, and what it says of their email.
public struct IDTokenClaims: Sendable, Equatable {
    /// `iss`, the provider's issuer.
    public let issuer: String
    /// `sub`, the person's identifier at the provider: with the issuer, what an identity is keyed on (never the email).
    public let subject: String
    /// `email`, when the token carries it.
    public let email: String?
    /// Whether `email_verified` is the JSON boolean `true`; anything else (absent, `false`, the string `"true"`) is
    /// not.
    public let emailVerified: Bool
    /// `name`, when the token carries it.
    public let name: String?
    /// Every claim, as signed.
    public let claims: JWTClaims
}

/// The id_token checks of OpenID Connect Core section 3.1.3.7, pure: the keys, the expectation and the time are given.
public enum IDToken {
    /// Verifies `token` and returns its claims.
    ///
    /// Checks, in order: the signature with the provider's published keys (``PublishedKeySet/verify(_:)``: RS256,
    /// ES256 as `r || s`, EdDSA; never `none` or HS*; the `kid`'s keys, or every key of the algorithm without a
    /// `kid`); `iss` exactly the issuer; `sub` a string of 1 to 255 bytes; `aud` (a string or an array of strings)
    /// containing the client id; `azp`, when present, the client id, and present when `aud` names anyone else; `exp`
    /// after `now - 60`; `iat` (required) and `nbf` not after `now + 60`; `nonce` the transaction's.
    /// - Parameters:
    ///   - token: the id_token from the token response.
    ///   - keys: the provider's JWKS.
    ///   - expectation: the issuer, client id and nonce.
    ///   - now: the current time in Unix seconds (an injected clock).
    /// - Throws: `JWTError` naming the first failed check (a fixed text, safe to log; the person signing in is told
    ///   only that the sign-in failed): `.unknownKey` asks the caller to fetch the JWKS again, once and rate-limited,
    ///   and check again; `.malformed`, `.criticalHeader`, `.unsupportedAlgorithm`, `.algorithmMismatch`,
    ///   `.badSignature`, `.wrongIssuer`, `.missingClaim`, `.wrongAudience`, `.wrongAuthorizedParty`, `.expired`,
    ///   `.notYetValid`, `.wrongNonce`.
    public static func verify(
        _ token: String, keys: PublishedKeySet, expecting expectation: IDTokenExpectation, now: Int64
    ) throws(JWTError) -> IDTokenClaims {
        let claims = try keys.verify(token)
        guard let issuerValue = claims["iss"] else { throw JWTError(.missingClaim, "iss is missing") }
        guard let issuer = issuerValue.stringValue, issuer.utf8.elementsEqual(expectation.issuer.utf8) else {
            throw JWTError(.wrongIssuer, "iss is not the provider's issuer")
        }
        guard let subjectValue = claims["sub"] else { throw JWTError(.missingClaim, "sub is missing") }
        guard let subject = subjectValue.stringValue, (1...255).contains(subject.utf8.count) else {
            throw JWTError(.malformed, "sub is not a string of 1 to 255 bytes")
        }
        try checkAudience(claims, clientID: expectation.clientID)
        try checkTimes(claims, now: now)
        guard let nonceValue = claims["nonce"] else { throw JWTError(.missingClaim, "nonce is missing") }
        guard let nonce = nonceValue.stringValue, !expectation.nonce.isEmpty,
            constantTimeEquals(Array(nonce.utf8), Array(expectation.nonce.utf8))
        else { throw JWTError(.wrongNonce, "nonce is not the login's") }
        return IDTokenClaims(
            issuer: issuer, subject: subject, email: claims["email"]?.stringValue,
            emailVerified: claims["email_verified"]?.boolValue == true, name: claims["name"]?.stringValue,
            claims: claims)
    }

    /// `aud` contains the client id; `azp` is the client id when present, and present when `aud` has others.
    private static func checkAudience(_ claims: JWTClaims, clientID: String) throws(JWTError) {
        let audiences: [String]
        switch claims["aud"] {
        case nil:
            throw JWTError(.missingClaim, "aud is missing")
        case .string(let audience)?:
            audiences = [audience]
        case .array(let values)?:
            audiences = values.compactMap(\.stringValue)
            guard !audiences.isEmpty, audiences.count == values.count else {
                throw JWTError(.malformed, "aud is not a string or an array of strings")
            }
        default:
            throw JWTError(.malformed, "aud is not a string or an array of strings")
        }
        let isClient = { (text: String) in text.utf8.elementsEqual(clientID.utf8) }
        guard audiences.contains(where: isClient) else {
            throw JWTError(.wrongAudience, "aud does not contain the client id")
        }
        if let azp = claims["azp"] {
            guard let party = azp.stringValue, isClient(party) else {
                throw JWTError(.wrongAuthorizedParty, "azp is not the client id")
            }
        } else if audiences.contains(where: { !isClient($0) }) {
            throw JWTError(.wrongAuthorizedParty, "aud names other audiences and azp is missing")
        }
    }

    /// `exp` after `now - skew`; `iat` (required) and `nbf` not after `now + skew`. Saturating, so that hostile values
    /// or an odd clock cannot overflow.
    private static func checkTimes(_ claims: JWTClaims, now: Int64) throws(JWTError) {
        let skew = IDTokenExpectation.skew
        let (early, earlyOverflow) = now.subtractingReportingOverflow(skew)
        let (late, lateOverflow) = now.addingReportingOverflow(skew)
        let earliest = earlyOverflow ? Int64.min : early
        let latest = lateOverflow ? Int64.max : late
        guard let expValue = claims["exp"] else { throw JWTError(.missingClaim, "exp is missing") }
        guard let exp = numericDate(expValue) else { throw JWTError(.malformed, "exp is not a number") }
        guard exp > earliest else { throw JWTError(.expired, "the id_token has expired") }
        guard let iatValue = claims["iat"] else { throw JWTError(.missingClaim, "iat is missing") }
        guard let iat = numericDate(iatValue) else { throw JWTError(.malformed, "iat is not a number") }
        guard iat <= latest else { throw JWTError(.notYetValid, "iat is in the future") }
        if let nbfValue = claims["nbf"] {
            guard let nbf = numericDate(nbfValue) else { throw JWTError(.malformed, "nbf is not a number") }
            guard nbf <= latest else { throw JWTError(.notYetValid, "nbf is in the future") }
        }
    }

    /// A NumericDate (RFC 7519 section 2): an integer, or a finite number rounded down, in seconds.
    static func numericDate(_ value: JSONValue) -> Int64? {
        if let integer = value.intValue { return integer }
        guard let number = value.doubleValue, number.isFinite, number.magnitude < 9.0e18 else { return nil }
        return Int64(number.rounded(.down))
    }
}
