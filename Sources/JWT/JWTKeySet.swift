import AuthCrypto
import JSON
import Synchronization

/// Keys by `kid`: signs with the active key of an algorithm, verifies with the key a token names,
/// and exports the RSA and Ed25519 public keys as a JWKS.
///
/// Safe to share between threads. Its keys change only as a whole, through ``replace(with:)``, which
/// `KeyStore.reload(now:)` uses so that a running server picks up rotated keys without a restart; each
/// lookup sees either the old keys or the new ones.
public final class JWTKeySet: Sendable {
    /// Longest token `verify` looks at, in bytes; longer input is refused before any decoding.
    public static let maximumTokenLength = 8 * 1024
    /// The largest clock leeway `verify` applies, in seconds.
    public static let maximumLeeway: Int64 = 30

    /// A class: every signature and verification takes the entry out of the lock, and a struct's copy
    /// retained (and then released) each of its references, on objects the event loops all share.
    private final class Entry: Sendable {
        let key: JWTKey
        /// base64url(`{"alg":"...","typ":"JWT","kid":"..."}`) followed by ".", ready to sign.
        let headerPrefix: [UInt8]
        /// The same with `"typ":"at+jwt"`, for OAuth access tokens (EdDSA keys only).
        let accessTokenHeaderPrefix: [UInt8]?
        /// The HMAC secret prepared once, for HS256 keys.
        let mac: HMACSHA256.Key?

        init(key: JWTKey, mac: HMACSHA256.Key?) {
            self.key = key
            headerPrefix = Self.headerPrefix(key, type: "JWT")
            accessTokenHeaderPrefix =
                key.algorithm == JWTPurpose.oauthAccess.algorithm
                ? Self.headerPrefix(key, type: JWTPurpose.oauthAccess.tokenType) : nil
            self.mac = mac
        }

        /// The header prefix of a token of `type` signed by `key`.
        func headerPrefix(type: String) -> [UInt8]? {
            type == "JWT" ? headerPrefix : type == JWTPurpose.oauthAccess.tokenType ? accessTokenHeaderPrefix : nil
        }

        private static func headerPrefix(_ key: JWTKey, type: String) -> [UInt8] {
            let header: JSONValue = [
                "alg": .string(key.algorithm.rawValue), "typ": .string(type), "kid": .string(key.kid),
            ]
            var prefix = [UInt8]()
            header.serialize().withUnsafeBufferPointer { Base64URL.encode($0, appendingTo: &prefix) }
            prefix.append(UInt8(ascii: "."))
            return prefix
        }
    }

    private struct Contents: Sendable {
        var entries: [String: Entry]
        /// kids in the order given to `init`.
        var order: [String]
        var activeHMAC: Entry?
        var activeRSA: Entry?
        var activeEdDSA: Entry?
        var activeES256: Entry?

        func active(_ algorithm: JWTAlgorithm) -> Entry? {
            switch algorithm {
            case .hs256: return activeHMAC
            case .rs256: return activeRSA
            case .edDSA: return activeEdDSA
            case .es256: return activeES256
            }
        }
    }

    private let contents: Mutex<Contents>
    /// Told the kid of every token whose kid is well formed but not in the set (see ``observeUnknownKIDs(_:)``).
    private let unknownKIDObserver = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// The keys as they are now. A lookup that reads more than one field takes one snapshot and reads
    /// them all from it: reading each under its own lock could mix the fields of the sets before and
    /// after a concurrent ``replace(with:)`` (a JWKS in the old order missing the new active key).
    private var snapshot: Contents { contents.withLock { $0 } }
    private var entries: [String: Entry] { contents.withLock { $0.entries } }
    private var activeRSA: Entry? { contents.withLock { $0.activeRSA } }
    private func active(_ algorithm: JWTAlgorithm) -> Entry? { contents.withLock { $0.active(algorithm) } }

    /// Creates a set.
    /// - Parameters:
    ///   - keys: every key that verifies; kids must be unique. RSA public keys verify only.
    ///   - activeHMAC: the kid that signs HS256, or nil for none.
    ///   - activeRSA: the kid that signs RS256, or nil for none.
    ///   - activeEdDSA: the kid that signs EdDSA, or nil for none.
    ///   - activeES256: the kid that signs ES256, or nil for none.
    /// - Throws: `JWTError` `.invalidKey` for duplicate kids, or an active kid that is missing, of the
    ///   wrong algorithm, or cannot sign.
    public init(
        keys: [JWTKey], activeHMAC: String?, activeRSA: String?, activeEdDSA: String? = nil, activeES256: String? = nil
    ) throws(JWTError) {
        var entries: [String: Entry] = [:]
        var order: [String] = []
        for key in keys {
            var mac: HMACSHA256.Key?
            if case .hmac(let secret) = key.material {
                do throws(CryptoError) {
                    mac = try HMACSHA256.Key(secret)
                } catch {
                    throw JWTError(.invalidKey, "HMAC key setup failed")
                }
            }
            guard entries.updateValue(Entry(key: key, mac: mac), forKey: key.kid) == nil else {
                throw JWTError(.invalidKey, "duplicate kid in key set")
            }
            order.append(key.kid)
        }
        func active(_ kid: String?, _ algorithm: JWTAlgorithm) throws(JWTError) -> Entry? {
            guard let kid else { return nil }
            guard let entry = entries[kid], entry.key.algorithm == algorithm, entry.key.canSign else {
                throw JWTError(.invalidKey, "active \(algorithm.rawValue) kid is not a signing key of that algorithm")
            }
            return entry
        }
        contents = Mutex(
            Contents(
                entries: entries, order: order, activeHMAC: try active(activeHMAC, .hs256),
                activeRSA: try active(activeRSA, .rs256), activeEdDSA: try active(activeEdDSA, .edDSA),
                activeES256: try active(activeES256, .es256)))
    }

    /// An empty set: signs nothing, verifies nothing.
    public init() {
        contents = Mutex(Contents(entries: [:], order: [], activeHMAC: nil, activeRSA: nil))
    }

    /// Takes every key of `other`, atomically: signing moves to `other`'s active keys and verification to
    /// its keys. Used by `KeyStore` so that every holder of this set sees rotations.
    public func replace(with other: JWTKeySet) {
        let new = other.contents.withLock { $0 }
        contents.withLock { $0 = new }
    }

    /// Calls `observer` with the kid of each token that names a well-formed kid this set does not hold, before
    /// its verification fails: a key store uses it to reload keys another instance has just published. The
    /// observer runs on the verifying thread, so it must be quick; it survives ``replace(with:)``.
    public func observeUnknownKIDs(_ observer: @escaping @Sendable (String) -> Void) {
        unknownKIDObserver.withLock { $0 = observer }
    }

    /// Every key, in the order given to `init`.
    public var keys: [JWTKey] {
        let snapshot = snapshot
        return snapshot.order.compactMap { snapshot.entries[$0]?.key }
    }

    /// The kid that signs `algorithm`, if any.
    public func activeKID(for algorithm: JWTAlgorithm) -> String? {
        active(algorithm)?.key.kid
    }

    /// The key named `kid`, if any.
    public func key(kid: String) -> JWTKey? { entries[kid]?.key }

    /// The public key of the active RS256 signing key (for pages that show it).
    public var activeRSAPublicKey: RSAPublicKey? { activeRSA?.key.rsaPublicKey }

    // MARK: Signing

    /// Signs `claims` with the active key of `algorithm`.
    ///
    /// The header is `{"alg":...,"typ":"JWT","kid":...}`; claims are serialized in their order.
    /// Does not add or check claims: the caller sets `iss`, `iat`, `exp`, `jti` and `pur`.
    /// - Throws: `JWTError` `.noSigningKey` when no key of that algorithm is active, `.signingFailed`.
    public func sign(_ claims: JWTClaims, algorithm: JWTAlgorithm) throws(JWTError) -> String {
        try sign(claims, algorithm: algorithm, type: "JWT")
    }

    private func sign(_ claims: JWTClaims, algorithm: JWTAlgorithm, type: String) throws(JWTError) -> String {
        guard let entry = active(algorithm) else {
            throw JWTError(.noSigningKey, "no active \(algorithm.rawValue) key")
        }
        guard let headerPrefix = entry.headerPrefix(type: type) else {
            throw JWTError(.signingFailed, "this key does not sign tokens of that type")
        }
        var token = [UInt8]()
        token.reserveCapacity(headerPrefix.count + 512)
        token.append(contentsOf: headerPrefix)
        let payload = JSONValue.object(claims.members).serialize()
        payload.withUnsafeBufferPointer { Base64URL.encode($0, appendingTo: &token) }
        let signature: [UInt8]
        switch entry.key.material {
        case .hmac:
            guard let mac = entry.mac else { throw JWTError(.signingFailed, "HMAC key not prepared") }
            signature = token.withUnsafeBufferPointer { mac.authenticationCode($0) }
        case .rsaPrivate(let privateKey):
            do {
                signature = try token.withUnsafeBufferPointer { input throws(CryptoError) in
                    try privateKey.signSHA256(input)
                }
            } catch {
                throw JWTError(.signingFailed, "RS256 signing failed")
            }
        case .ed25519Private(let privateKey):
            do {
                signature = try token.withUnsafeBufferPointer { input throws(CryptoError) in try privateKey.sign(input)
                }
            } catch {
                throw JWTError(.signingFailed, "EdDSA signing failed")
            }
        case .p256Private(let privateKey):
            do {
                signature = try token.withUnsafeBufferPointer { input throws(CryptoError) in try privateKey.sign(input) }
            } catch {
                throw JWTError(.signingFailed, "ES256 signing failed")
            }
        case .rsaPublic, .ed25519Public, .p256Public:
            throw JWTError(.noSigningKey, "active key cannot sign")
        }
        token.append(UInt8(ascii: "."))
        signature.withUnsafeBufferPointer { Base64URL.encode($0, appendingTo: &token) }
        return String(decoding: token, as: UTF8.self)
    }

    /// Signs `claims`, whose `pur` must be `purpose`, with the active key of the purpose's algorithm and the
    /// purpose's header `typ`: the one table (``JWTPurpose/algorithm``, ``JWTPurpose/tokenType``) decides how a
    /// token is minted and how it is verified.
    /// - Throws: `JWTError` `.wrongPurpose` when `pur` is not `purpose`, `.lifetimeTooLong` when the purpose has a
    ///   ``JWTPurpose/maximumLifetime`` and `exp - iat` is missing or longer, `.noSigningKey`, `.signingFailed`.
    public func sign(_ claims: JWTClaims, for purpose: JWTPurpose) throws(JWTError) -> String {
        guard claims.pur == purpose.rawValue else { throw JWTError(.wrongPurpose, "pur is not the purpose signed for") }
        if let cap = purpose.maximumLifetime {
            guard let iat = claims.iat, let exp = claims.exp, exp >= iat, exp - iat <= cap else {
                throw JWTError(.lifetimeTooLong, "exp is further from iat than this purpose's lifetime")
            }
        }
        return try sign(claims, algorithm: purpose.algorithm, type: purpose.tokenType)
    }

    // MARK: Verification

    /// Verifies `token` against `policy` and returns its claims.
    ///
    /// Checks, in order: length (at most 8 KiB) and exactly three non-empty segments; a header that
    /// is a JSON object with string `alg` and `kid`, the purpose's `typ` (``JWTPurpose/tokenType``; `JWT` may also
    /// be absent), and no `crit`; a known
    /// `kid`; `alg` equal to that key's algorithm; that algorithm equal to the policy purpose's (before any
    /// signature work, so a token signed by the key of another purpose costs no RSA verification); the
    /// signature; then the claims: `exp` (required) later than `now - leeway`, `nbf` and `iat` (required) not
    /// later than `now + leeway`, `exp - iat` at most the policy's lifetime (and the purpose's), `jti` present, `iss` exactly the
    /// policy's issuer, `pur` exactly its purpose, `aud` a single string equal to its audience
    /// (absent when it has none), `scope` likewise to its scope.
    /// - Parameters:
    ///   - policy: what the token must be.
    ///   - now: the current time in Unix seconds.
    ///   - leeway: allowed clock skew in seconds, clamped to 0...30.
    /// - Throws: `JWTError` naming the first failed check.
    public func verify(_ token: String, policy: JWTPolicy, now: Int64, leeway: Int64 = 30) throws(JWTError)
        -> JWTClaims
    {
        try verify(token, policy: policy, now: now, leeway: leeway, checkingAudienceAndScope: true)
    }

    /// As ``verify(_:policy:now:leeway:)``; without the `aud` and `scope` checks for a ``JWTTypedClaims`` type that
    /// reads them itself.
    func verify(_ token: String, policy: JWTPolicy, now: Int64, leeway: Int64, checkingAudienceAndScope: Bool)
        throws(JWTError) -> JWTClaims
    {
        guard token.utf8.count <= Self.maximumTokenLength else { throw JWTError(.malformed, "token too long") }
        let leeway = min(max(leeway, 0), Self.maximumLeeway)
        let purpose = policy.purpose
        var token = token
        // String.withUTF8 rethrows untyped errors; carry the typed one out in a Result.
        let claims = try token.withUTF8 { bytes in
            Result { () throws(JWTError) in try verifySignature(bytes, purpose: purpose) }
        }.get()
        try checkClaims(claims, policy: policy, now: now, leeway: leeway)
        if checkingAudienceAndScope { try checkAudienceAndScope(claims, policy: policy) }
        return claims
    }

    private func verifySignature(_ bytes: UnsafeBufferPointer<UInt8>, purpose: JWTPurpose) throws(JWTError)
        -> JWTClaims
    {
        let jws = try CompactJWS(bytes)
        let entry = try headerEntry(jws, type: purpose.tokenType)
        guard entry.key.algorithm == purpose.algorithm else {
            throw JWTError(.wrongAlgorithm, "the key is not of this purpose's algorithm")
        }
        let signature = try jws.signatureBytes()
        let signingInput = jws.signingInput
        let valid: Bool
        switch entry.key.material {
        case .hmac:
            guard let mac = entry.mac else { throw JWTError(.badSignature, "HMAC key not prepared") }
            valid = constantTimeEquals(mac.authenticationCode(signingInput), signature)
        case .rsaPrivate(let privateKey):
            valid = signature.withUnsafeBufferPointer {
                privateKey.publicKey.verifySHA256(signature: $0, message: signingInput)
            }
        case .rsaPublic(let publicKey):
            valid = signature.withUnsafeBufferPointer {
                publicKey.verifySHA256(signature: $0, message: signingInput)
            }
        case .ed25519Private(let privateKey):
            valid = signature.withUnsafeBufferPointer {
                privateKey.publicKey.verify(signature: $0, message: signingInput)
            }
        case .ed25519Public(let publicKey):
            valid = signature.withUnsafeBufferPointer { publicKey.verify(signature: $0, message: signingInput) }
        case .p256Private(let privateKey):
            valid = signature.withUnsafeBufferPointer {
                privateKey.publicKey.verify(signature: $0, message: signingInput)
            }
        case .p256Public(let publicKey):
            valid = signature.withUnsafeBufferPointer { publicKey.verify(signature: $0, message: signingInput) }
        }
        guard valid else { throw JWTError(.badSignature, "signature does not verify") }
        return try jws.claims()
    }

    /// Decodes the header and returns the key it names, with `alg` checked against that key and `typ` against `type`
    /// (a purpose's ``JWTPurpose/tokenType``).
    private func headerEntry(_ jws: CompactJWS, type: String) throws(JWTError) -> Entry {
        let header = try jws.decodedHeader()
        let (alg, kid, typ) = (header.alg, header.kid, header.typ)
        if let typ, !Self.isType(typ, type) { throw JWTError(.malformed, "typ is not this purpose's token type") }
        // RFC 9068 section 4: an access token's typ is required; a plain JWT's may be left out (RFC 7519 5.1).
        guard typ != nil || type == "JWT" else { throw JWTError(.malformed, "typ is missing") }
        guard let alg else { throw JWTError(.malformed, "alg is missing") }
        guard let algorithm = JWTAlgorithm(rawValue: alg) else {
            throw JWTError(.unsupportedAlgorithm, "alg is not HS256, RS256 or EdDSA")
        }
        // Only a kid that could name a key (ASCII) is looked up: String keys compare by canonical
        // equivalence, so "\u{212A}1" (KELVIN SIGN) would otherwise find the key "K1".
        guard let kid, JWTKey.isValidKID(kid) else { throw JWTError(.unknownKey, "kid is missing or unknown") }
        guard let entry = entries[kid] else {
            unknownKIDObserver.withLock { $0 }?(kid)
            throw JWTError(.unknownKey, "kid is missing or unknown")
        }
        guard entry.key.algorithm == algorithm else {
            throw JWTError(.algorithmMismatch, "alg does not match the key's algorithm")
        }
        return entry
    }

    /// Whether the header `typ` `text` names `type`: `JWT` exactly as `JWT` or `jwt` (as always); `at+jwt` as
    /// `at+jwt` or `application/at+jwt` in any case (RFC 9068 section 4, RFC 7515 section 4.1.9).
    static func isType(_ text: String, _ type: String) -> Bool {
        if type == "JWT" { return text == "JWT" || text == "jwt" }
        // ASCII case only: Unicode lowercasing maps some other characters onto ASCII letters.
        let lowered = String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        return lowered == type || lowered == "application/" + type
    }

    private func checkClaims(_ claims: JWTClaims, policy: JWTPolicy, now: Int64, leeway: Int64) throws(JWTError) {
        guard let exp = claims.exp else { throw JWTError(.missingClaim, "exp is missing or not an integer") }
        guard let iat = claims.iat else { throw JWTError(.missingClaim, "iat is missing or not an integer") }
        // Saturating, so that hostile values or an odd injected clock cannot overflow.
        let (early, earlyOverflow) = now.subtractingReportingOverflow(leeway)
        let (late, lateOverflow) = now.addingReportingOverflow(leeway)
        let earliest = earlyOverflow ? Int64.min : early
        let latest = lateOverflow ? Int64.max : late
        // RFC 7519: not accepted on or after exp (plus leeway).
        guard exp > earliest else { throw JWTError(.expired, "token has expired") }
        guard iat <= latest else { throw JWTError(.notYetValid, "iat is in the future") }
        if let nbf = claims["nbf"] {
            guard let nbf = nbf.intValue else { throw JWTError(.malformed, "nbf is not an integer") }
            guard nbf <= latest else { throw JWTError(.notYetValid, "token is not valid yet") }
        }
        // With iat at most now + leeway, this also bounds exp to now + leeway + the lifetime.
        let (lifetime, lifetimeOverflow) = exp.subtractingReportingOverflow(iat)
        let maximumLifetime = min(policy.maximumLifetime, policy.purpose.maximumLifetime ?? .max)
        guard !lifetimeOverflow, lifetime <= maximumLifetime else {
            throw JWTError(.lifetimeTooLong, "exp is further from iat than this purpose's lifetime")
        }
        guard claims.jti != nil else { throw JWTError(.missingClaim, "jti is missing") }
        guard let iss = claims.iss, iss == policy.issuer else {
            throw JWTError(.wrongIssuer, "iss is not this issuer")
        }
        guard let pur = claims.pur, pur == policy.purpose.rawValue else {
            throw JWTError(.wrongPurpose, "token is not for this purpose")
        }
    }

    private func checkAudienceAndScope(_ claims: JWTClaims, policy: JWTPolicy) throws(JWTError) {
        switch (claims["aud"], policy.audience) {
        case (nil, nil): break
        case (.string(let aud)?, let expected?) where aud == expected: break
        default: throw JWTError(.wrongAudience, "aud is not this audience")
        }
        switch (claims["scope"], policy.scope) {
        case (nil, nil): break
        case (.string(let scope)?, let expected?) where scope == expected: break
        default: throw JWTError(.wrongScope, "scope is not this scope")
        }
    }

    // MARK: JWKS

    /// The JWKS document (RFC 7517) of every RSA, Ed25519 and P-256 key in the set: first the RSA keys
    /// (`{"kty":"RSA","kid":...,"alg":"RS256","use":"sig","n":...,"e":...}`), then the Ed25519 keys
    /// (`{"kty":"OKP","kid":...,"alg":"EdDSA","use":"sig","crv":"Ed25519","x":...}`, RFC 8037), then the P-256 keys
    /// (`{"kty":"EC","kid":...,"alg":"ES256","use":"sig","crv":"P-256","x":...,"y":...}`), each kind with its
    /// active key first. RSA keys lead so that a client which takes the first key keeps finding the RS256 one.
    public func jwksJSON() -> [UInt8] {
        let snapshot = snapshot
        let entries = snapshot.entries
        func kids(_ algorithm: JWTAlgorithm) -> [String] {
            var kids = snapshot.order.filter { entries[$0]?.key.algorithm == algorithm }
            if let active = snapshot.active(algorithm)?.key.kid, let index = kids.firstIndex(of: active) {
                kids.remove(at: index)
                kids.insert(active, at: 0)
            }
            return kids
        }
        let rsa: [JSONValue] = kids(.rs256).compactMap { kid in
            entries[kid]?.key.rsaPublicKey.map { JWK.rsaPublicJWK($0, kid: kid) }
        }
        let okp: [JSONValue] = kids(.edDSA).compactMap { kid in
            entries[kid]?.key.ed25519PublicKey.map { JWK.okpPublicJWK($0, kid: kid) }
        }
        let ec: [JSONValue] = kids(.es256).compactMap { kid in
            entries[kid]?.key.p256PublicKey.map { JWK.ecPublicJWK($0, kid: kid) }
        }
        return JSONValue.object([("keys", .array(rsa + okp + ec))]).serialize()
    }
}
