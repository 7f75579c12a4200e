import AuthCrypto
import JSON
import JWT
import OAuthGrants
import Owners
import SignInMethods

/// The claims of an ID token (OpenID Connect Core 1.0 section 2) for an owner's sign-in to a relying party. Pure:
/// the caller signs them with the active key of the relying party's algorithm.
struct OIDCIDToken: Sendable, Equatable {
    /// The issuer (`iss`).
    let issuer: String
    /// The sign-in, as its code carried it.
    let signIn: OIDCSignIn
    /// The subject the relying party knows the owner by (`sub`, ``OIDCSubject``).
    let subject: String
    /// The owner's email (`email`, with the `email` scope; also `preferred_username` with `profile`).
    let email: String
    /// Whether the owner's email is proven (the operator made the owner, or a sign-in provider vouched for that
    /// address): `email_verified`.
    let emailVerified: Bool
    /// `iat`, Unix seconds.
    let issuedAt: Int64
    /// Seconds until `exp`.
    let lifetime: Int64
    /// The access token issued beside it (`at_hash`), if any.
    let accessToken: String?
    /// The signing algorithm (the hash of `at_hash` follows it).
    let algorithm: OIDCRelyingParty.SigningAlgorithm
    /// The session's id at this issuer (`sid`, OpenID Back-Channel Logout 1.0 section 2.1).
    let sessionID: String

    /// `iss`, `sub`, `aud`, `azp`, `exp`, `iat`, `auth_time`, `nonce` (when sent), `at_hash` (with an access token),
    /// `amr`, `acr`, `sid`, then `email`/`email_verified` and `preferred_username` by scope, and what the `claims`
    /// parameter asked for the ID token.
    var claims: JWTClaims {
        var members: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("sub", .string(subject)), ("aud", .string(signIn.clientID)),
            ("azp", .string(signIn.clientID)), ("exp", .int(issuedAt + lifetime)), ("iat", .int(issuedAt)),
            ("auth_time", .int(signIn.authTime)),
        ]
        if let nonce = signIn.nonce { members.append(("nonce", .string(nonce))) }
        if let accessToken { members.append(("at_hash", .string(Self.halfHash(accessToken, algorithm: algorithm)))) }
        let methods = AuthenticationMethods(stored: signIn.method)
        members.append(("amr", .array(methods.amr.map(JSONValue.string))))
        members.append(("acr", .string(Self.acr(methods))))
        members.append(("sid", .string(sessionID)))
        members += Self.ownerClaims(
            .idToken, scopes: signIn.scopes, claims: signIn.claims, email: email, emailVerified: emailVerified)
        return JWTClaims(members)
    }

    /// What `target` says of the owner: the scopes' claims (``profileClaims(scopes:email:emailVerified:)``), then
    /// those the `claims` parameter asked for `target` by name that the scopes did not release already.
    static func ownerClaims(
        _ target: OIDCClaimsRequest.Target, scopes: [String], claims: OIDCClaimsRequest, email: String,
        emailVerified: Bool
    ) -> [(String, JSONValue)] {
        var members = profileClaims(scopes: scopes, email: email, emailVerified: emailVerified)
        let available: [OIDCClaimsRequest.Name: JSONValue] = [
            .email: .string(email), .emailVerified: .bool(emailVerified), .name: .string(email),
        ]
        for (name, value) in claims.released(target, from: available) where !members.contains(where: { $0.0 == name }) {
            members.append((name, value))
        }
        return members
    }

    /// What the `email` and `profile` scopes release (the ID token and userinfo say the same): the owner's email and
    /// whether it is proven; `preferred_username`, the email (owners have no other name).
    static func profileClaims(scopes: [String], email: String, emailVerified: Bool) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if scopes.contains("email") {
            members.append(("email", .string(email)))
            members.append(("email_verified", .bool(emailVerified)))
        }
        if scopes.contains("profile") { members.append(("preferred_username", .string(email))) }
        return members
    }

    /// `at_hash` (Core section 3.1.3.6): base64url of the left half of the hash of the access token's ASCII bytes,
    /// with the hash of the signature algorithm (SHA-256 for RS256 and ES256, SHA-512 for Ed25519).
    static func halfHash(_ token: String, algorithm: OIDCRelyingParty.SigningAlgorithm) -> String {
        let digest = algorithm == .edDSA ? SHA512.hash(token) : SHA256.hash(token)
        return Base64URL.encode(Array(digest.prefix(digest.count / 2)))
    }

    /// `acr`: `phr` (phishing-resistant, OpenID EAP ACR Values 1.0) for a sign-in with a passkey; `2` (two factors)
    /// for any other sign-in with two methods or more (a password and a TOTP code: not phishing-resistant, the code
    /// can be relayed); `1` (one factor) otherwise.
    static func acr(_ methods: AuthenticationMethods) -> String {
        methods.contains(.passkey) ? "phr" : methods.isMultiFactor ? "2" : "1"
    }

    /// The `acr` values a sign-in may carry (`acr_values_supported`), strongest first.
    static let acrValues = ["phr", "2", "1"]
}

