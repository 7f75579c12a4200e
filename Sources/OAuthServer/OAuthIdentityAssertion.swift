import AuthCrypto
import Directory
import JSON
import JWT

/// The checks of an identity assertion authorization grant (ID-JAG, `typ: oauth-id-jag+jwt`: MCP's
/// enterprise-managed authorization, draft-ietf-oauth-identity-assertion-authz-grant), pure: the issuer's keys, this
/// server's issuer, the client presenting it and the time are given. The caller first found the issuer among the
/// sign-in providers the operator trusts, and then records the `jti` (single use on every instance) until
/// ``Verified/expiresAt`` and maps (`iss`, `sub`) to the owner who signs in with that identity.
public enum OAuthIdentityAssertion {
    /// The header `typ` an ID-JAG carries.
    public static let type = "oauth-id-jag+jwt"
    /// The token type naming an ID-JAG (a `subject_token_type`, RFC 8693).
    public static let tokenType = "urn:ietf:params:oauth:token-type:id-jag"
    /// The clock skew allowed on `exp`, `iat` and `nbf`, seconds.
    public static let skew: Int64 = 30

    /// What a verified assertion says.
    public struct Verified: Sendable, Equatable {
        /// `iss`: the sign-in provider.
        public let issuer: String
        /// `sub`: the person at that provider.
        public let subject: String
        /// `jti`: refused a second time until ``expiresAt``.
        public let jti: String
        /// `exp`, Unix seconds.
        public let expiresAt: Int64
        /// `scope`, when it names any; nil when absent.
        public let permissions: MailPermissions?
        /// `resource`, when present.
        public let resource: String?
        /// `may_act`, when present.
        public let mayAct: OAuthTokenExchangeRules.MayAct?
    }

    /// The issuer `assertion` claims, read without checking anything (to find the provider's keys by); nil when it
    /// is not a compact JWS with a string `iss`. Never trust it further.
    public static func claimedIssuer(_ assertion: String) -> String? {
        OAuthJWTPayload.read(assertion)?["iss"]?.stringValue
    }

    /// Verifies `assertion` as an ID-JAG of `issuer` for `clientID` at this server.
    ///
    /// Checks, in order: the signature with the issuer's keys (``PublishedKeySet/verify(_:)``: the algorithm from
    /// the key, never `none` or HS*); the header's `typ` exactly `oauth-id-jag+jwt` (so that an id_token or an
    /// access token of the provider is not taken for one); `iss` exactly `issuer`; `sub` a string of 1 to 255 bytes;
    /// `aud` (a string or strings) naming `audience` (this server's issuer); `client_id` exactly `clientID`; `exp`
    /// present, not past (``skew`` allowed) and at most `maxLifetime` ahead; `iat`, when present, not in the future;
    /// `jti` a string of 1 to 256 bytes; `scope`, when present, `mail.read` and/or `mail.send`; `may_act`, when
    /// present, an object with a string `sub`.
    /// - Throws: `JWTError`: `.unknownKey` (fetch the keys again, once), `.malformed`, `.criticalHeader`,
    ///   `.unsupportedAlgorithm`, `.algorithmMismatch`, `.badSignature` (`.malformed` too for a wrong `typ`),
    ///   `.wrongIssuer`, `.missingClaim`, `.wrongAudience`, `.wrongAuthorizedParty`, `.expired`, `.notYetValid`,
    ///   `.lifetimeTooLong`, `.wrongScope`.
    public static func verify(
        _ assertion: String, keys: PublishedKeySet, issuer: String, audience: String, clientID: String, now: Int64,
        maxLifetime: Int64
    ) throws(JWTError) -> Verified {
        let claims = try keys.verify(assertion)
        guard OAuthJWTPayload.header(assertion)?["typ"]?.stringValue == type else {
            throw JWTError(.malformed, "typ is not oauth-id-jag+jwt")
        }
        guard let iss = claims["iss"]?.stringValue, iss.utf8.elementsEqual(issuer.utf8) else {
            throw JWTError(.wrongIssuer, "iss is not the provider's issuer")
        }
        guard let subject = claims["sub"]?.stringValue, (1...255).contains(subject.utf8.count) else {
            throw JWTError(.missingClaim, "sub is not a string of 1 to 255 bytes")
        }
        guard try OAuthClientAssertion.audiences(of: claims).contains(audience) else {
            throw JWTError(.wrongAudience, "aud does not name this server")
        }
        guard let client = claims["client_id"]?.stringValue, client.utf8.elementsEqual(clientID.utf8) else {
            throw JWTError(.wrongAuthorizedParty, "client_id is not the client presenting it")
        }
        guard let exp = claims["exp"]?.intValue else { throw JWTError(.missingClaim, "exp is missing") }
        guard exp > now - skew else { throw JWTError(.expired, "the assertion has expired") }
        guard exp <= now + maxLifetime + skew else {
            throw JWTError(.lifetimeTooLong, "exp is further ahead than an assertion may live")
        }
        if let iatValue = claims["iat"] {
            guard let iat = iatValue.intValue, iat <= now + skew else { throw JWTError(.notYetValid, "iat is ahead") }
        }
        if let nbfValue = claims["nbf"] {
            guard let nbf = nbfValue.intValue, nbf <= now + skew else { throw JWTError(.notYetValid, "nbf is ahead") }
        }
        guard let jti = claims["jti"]?.stringValue, (1...256).contains(jti.utf8.count) else {
            throw JWTError(.missingClaim, "jti is not a string of 1 to 256 bytes")
        }
        var permissions: MailPermissions?
        if let scopeValue = claims["scope"] {
            guard let scope = scopeValue.stringValue, let read = MailPermissions(scope: scope) else {
                throw JWTError(.wrongScope, "scope is not mail.read or mail.send")
            }
            permissions = read
        }
        var mayAct: OAuthTokenExchangeRules.MayAct?
        if let value = claims["may_act"] {
            guard let read = OAuthService.mayAct(value) else { throw JWTError(.malformed, "may_act is malformed") }
            mayAct = read
        }
        return Verified(
            issuer: iss, subject: subject, jti: jti, expiresAt: exp, permissions: permissions,
            resource: claims["resource"]?.stringValue, mayAct: mayAct)
    }
}
