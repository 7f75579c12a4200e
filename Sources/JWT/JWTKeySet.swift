import AuthCrypto
import JSON
import Synchronization

/// Keys by `kid`: signs with the active key of an algorithm, verifies with the key a token names,
/// and exports the RSA public keys as a JWKS.
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
        /// The HMAC secret prepared once, for HS256 keys.
        let mac: HMACSHA256.Key?

        init(key: JWTKey, headerPrefix: [UInt8], mac: HMACSHA256.Key?) {
            self.key = key
            self.headerPrefix = headerPrefix
            self.mac = mac
        }
    }

    private struct Contents: Sendable {
        var entries: [String: Entry]
        /// kids in the order given to `init`.
        var order: [String]
        var activeHMAC: Entry?
        var activeRSA: Entry?
    }

    private let contents: Mutex<Contents>
    /// Told the kid of every token whose kid is well formed but not in the set (see ``observeUnknownKIDs(_:)``).
    private let unknownKIDObserver = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// The keys as they are now. A lookup that reads more than one field takes one snapshot and reads
    /// them all from it: reading each under its own lock could mix the fields of the sets before and
    /// after a concurrent ``replace(with:)`` (a JWKS in the old order missing the new active key).
    private var snapshot: Contents { contents.withLock { $0 } }
    private var entries: [String: Entry] { contents.withLock { $0.entries } }
    private var activeHMAC: Entry? { contents.withLock { $0.activeHMAC } }
    private var activeRSA: Entry? { contents.withLock { $0.activeRSA } }

    /// Creates a set.
    /// - Parameters:
    ///   - keys: every key that verifies; kids must be unique. RSA public keys verify only.
    ///   - activeHMAC: the kid that signs HS256, or nil for none.
    ///   - activeRSA: the kid that signs RS256, or nil for none.
    /// - Throws: `JWTError` `.invalidKey` for duplicate kids, or an active kid that is missing, of the
    ///   wrong algorithm, or cannot sign.
    public init(keys: [JWTKey], activeHMAC: String?, activeRSA: String?) throws(JWTError) {
        var entries: [String: Entry] = [:]
        var order: [String] = []
        for key in keys {
            let header: JSONValue = ["alg": .string(key.algorithm.rawValue), "typ": "JWT", "kid": .string(key.kid)]
            var prefix = [UInt8]()
            header.serialize().withUnsafeBufferPointer { Base64URL.encode($0, appendingTo: &prefix) }
            prefix.append(UInt8(ascii: "."))
            var mac: HMACSHA256.Key?
            if case .hmac(let secret) = key.material {
                do throws(CryptoError) {
                    mac = try HMACSHA256.Key(secret)
                } catch {
                    throw JWTError(.invalidKey, "HMAC key setup failed")
                }
            }
            guard entries.updateValue(Entry(key: key, headerPrefix: prefix, mac: mac), forKey: key.kid) == nil else {
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
                activeRSA: try active(activeRSA, .rs256)))
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
        (algorithm == .hs256 ? activeHMAC : activeRSA)?.key.kid
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
        guard let entry = algorithm == .hs256 ? activeHMAC : activeRSA else {
            throw JWTError(.noSigningKey, "no active \(algorithm.rawValue) key")
        }
        var token = [UInt8]()
        token.reserveCapacity(entry.headerPrefix.count + 512)
        token.append(contentsOf: entry.headerPrefix)
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
        case .rsaPublic:
            throw JWTError(.noSigningKey, "active key cannot sign")
        }
        token.append(UInt8(ascii: "."))
        signature.withUnsafeBufferPointer { Base64URL.encode($0, appendingTo: &token) }
        return String(decoding: token, as: UTF8.self)
    }

    /// Signs `claims`, whose `pur` must be `purpose`, with the active key of the purpose's algorithm: the one table
    /// (``JWTPurpose/algorithm``) decides how a token is minted and how it is verified.
    /// - Throws: `JWTError` `.wrongPurpose` when `pur` is not `purpose`, `.noSigningKey`, `.signingFailed`.
    public func sign(_ claims: JWTClaims, for purpose: JWTPurpose) throws(JWTError) -> String {
        guard claims.pur == purpose.rawValue else { throw JWTError(.wrongPurpose, "pur is not the purpose signed for") }
        return try sign(claims, algorithm: purpose.algorithm)
    }

    // MARK: Verification

    /// Verifies `token` against `policy` and returns its claims.
    ///
    /// Checks, in order: length (at most 8 KiB) and exactly three non-empty segments; a header that
    /// is a JSON object with string `alg` and `kid`, `typ` absent or `JWT`, and no `crit`; a known
    /// `kid`; `alg` equal to that key's algorithm; that algorithm equal to the policy purpose's (before any
    /// signature work, so a token signed by the key of another purpose costs no RSA verification); the
    /// signature; then the claims: `exp` (required) later than `now - leeway`, `nbf` and `iat` (required) not
    /// later than `now + leeway`, `exp - iat` at most the policy's lifetime, `jti` present, `iss` exactly the
    /// policy's issuer, `pur` exactly its purpose, `aud` a single string equal to its audience (absent when it
    /// has none), `scope` likewise to its scope.
    /// - Parameters:
    ///   - policy: what the token must be.
    ///   - now: the current time in Unix seconds.
    ///   - leeway: allowed clock skew in seconds, clamped to 0...30.
    /// - Throws: `JWTError` naming the first failed check.
    public func verify(_ token: String, policy: JWTPolicy, now: Int64, leeway: Int64 = 30) throws(JWTError)
        -> JWTClaims
    {
        guard token.utf8.count <= Self.maximumTokenLength else { throw JWTError(.malformed, "token too long") }
        let leeway = min(max(leeway, 0), Self.maximumLeeway)
        let algorithm = policy.purpose.algorithm
        var token = token
        // String.withUTF8 rethrows untyped errors; carry the typed one out in a Result.
        let claims = try token.withUTF8 { bytes in
            Result { () throws(JWTError) in try verifySignature(bytes, algorithm: algorithm) }
        }.get()
        try checkClaims(claims, policy: policy, now: now, leeway: leeway)
        return claims
    }

    private func verifySignature(_ bytes: UnsafeBufferPointer<UInt8>, algorithm: JWTAlgorithm) throws(JWTError)
        -> JWTClaims
    {
        var firstDot = -1
        var secondDot = -1
        for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
            if firstDot < 0 {
                firstDot = index
            } else if secondDot < 0 {
                secondDot = index
            } else {
                throw JWTError(.malformed, "token must have three segments")
            }
        }
        guard secondDot >= 0 else { throw JWTError(.malformed, "token must have three segments") }
        let headerText = UnsafeBufferPointer(rebasing: bytes[0..<firstDot])
        let payloadText = UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])
        let signatureText = UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...])
        guard !headerText.isEmpty, !payloadText.isEmpty else { throw JWTError(.malformed, "empty segment") }
        guard !signatureText.isEmpty else { throw JWTError(.badSignature, "empty signature") }

        let entry = try headerEntry(headerText)
        guard entry.key.algorithm == algorithm else {
            throw JWTError(.wrongAlgorithm, "the key is not of this purpose's algorithm")
        }
        guard let signature = Base64URL.decode(signatureText) else {
            throw JWTError(.badSignature, "signature is not base64url")
        }
        let signingInput = UnsafeBufferPointer(rebasing: bytes[0..<secondDot])
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
        }
        guard valid else { throw JWTError(.badSignature, "signature does not verify") }

        guard let payload = Base64URL.decode(payloadText) else {
            throw JWTError(.malformed, "payload is not base64url")
        }
        guard case .object(let members)? = try? JSONValue.parse(payload, limits: .init(maximumDepth: 8)) else {
            throw JWTError(.malformed, "payload is not a JSON object")
        }
        return JWTClaims(validated: members)
    }

    /// Decodes the header and returns the key it names, with `alg` checked against that key.
    private func headerEntry(_ text: UnsafeBufferPointer<UInt8>) throws(JWTError) -> Entry {
        guard text.count <= 1024, let decoded = Base64URL.decode(text) else {
            throw JWTError(.malformed, "header is not base64url")
        }
        guard case .object(let header)? = try? JSONValue.parse(decoded, limits: .init(maximumDepth: 4)) else {
            throw JWTError(.malformed, "header is not a JSON object")
        }
        var alg: String?
        var kid: String?
        for (name, value) in header {
            switch name {
            case "crit":
                throw JWTError(.criticalHeader, "crit header is not supported")
            case "alg":
                guard case .string(let text) = value else { throw JWTError(.malformed, "alg is not a string") }
                alg = text
            case "kid":
                guard case .string(let text) = value else { throw JWTError(.malformed, "kid is not a string") }
                kid = text
            case "typ":
                guard case .string(let text) = value, text == "JWT" || text == "jwt" else {
                    throw JWTError(.malformed, "typ is not JWT")
                }
            default:
                // Other members (jku, x5u, jwk, ...) are never used to find or build a key.
                continue
            }
        }
        guard let alg else { throw JWTError(.malformed, "alg is missing") }
        guard let algorithm = JWTAlgorithm(rawValue: alg) else {
            throw JWTError(.unsupportedAlgorithm, "alg is not HS256 or RS256")
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
        guard !lifetimeOverflow, lifetime <= policy.maximumLifetime else {
            throw JWTError(.lifetimeTooLong, "exp is further from iat than this purpose's lifetime")
        }
        guard claims.jti != nil else { throw JWTError(.missingClaim, "jti is missing") }
        guard let iss = claims.iss, iss == policy.issuer else {
            throw JWTError(.wrongIssuer, "iss is not this issuer")
        }
        guard let pur = claims.pur, pur == policy.purpose.rawValue else {
            throw JWTError(.wrongPurpose, "token is not for this purpose")
        }
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

    /// The JWKS document (RFC 7517) of every RSA key in the set:
    /// `{"keys":[{"kty":"RSA","kid":...,"alg":"RS256","use":"sig","n":...,"e":...}]}`, the active key first.
    public func jwksJSON() -> [UInt8] {
        let snapshot = snapshot
        let entries = snapshot.entries
        var kids = snapshot.order.filter { entries[$0]?.key.algorithm == .rs256 }
        if let active = snapshot.activeRSA?.key.kid, let index = kids.firstIndex(of: active) {
            kids.remove(at: index)
            kids.insert(active, at: 0)
        }
        let keys: [JSONValue] = kids.compactMap { kid in
            entries[kid]?.key.rsaPublicKey.map { JWK.rsaPublicJWK($0, kid: kid) }
        }
        return JSONValue.object([("keys", .array(keys))]).serialize()
    }
}
