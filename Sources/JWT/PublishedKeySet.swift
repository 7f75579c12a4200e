import AuthCrypto
import JSON

/// The keys another issuer publishes (its JWKS, RFC 7517 section 5), and the check of a compact JWS it signed.
///
/// Pure: the caller fetches the document and keeps the set. ``verify(_:)`` answers `.unknownKey` when the token's
/// `kid` names no key here (or, without a `kid`, when no key has its algorithm): the caller may then fetch the JWKS
/// again once (the issuer rotated), rate-limited so that a stream of made-up kids cannot make it fetch without end.
public struct PublishedKeySet: Sendable {
    /// The longest JWKS document read, in bytes.
    public static let maximumDocumentLength = 64 * 1024
    /// The most keys kept from one document; the rest are ignored.
    public static let maximumKeys = 64
    /// The longest token ``verify(_:)`` looks at, in bytes (id_tokens with many claims run past Postern's own 8 KiB).
    public static let maximumTokenLength = 16 * 1024

    /// The usable keys in the document's order.
    public let keys: [PublishedKey]

    /// A set of `keys`.
    public init(keys: [PublishedKey]) {
        self.keys = keys
    }

    /// The usable keys of a JWKS document: an object whose `keys` member is an array of JWKs. Keys this server cannot
    /// verify with are skipped (see ``PublishedKey``); a set may so be empty.
    /// - Throws: `JWTError` `.malformed` when the document is too long, not JSON, or has no `keys` array.
    public init(jwks document: [UInt8]) throws(JWTError) {
        guard document.count <= Self.maximumDocumentLength,
            let parsed = try? JSONValue.parse(document, limits: .init(maximumDepth: 8)),
            parsed.objectValue != nil, let jwks = parsed["keys"]?.arrayValue
        else { throw JWTError(.malformed, "JWKS is not a JSON object with a keys array") }
        keys = Array(jwks.lazy.compactMap(PublishedKey.reading).prefix(Self.maximumKeys))
    }

    /// Checks the signature of the compact JWS `token` and returns its claims (which the caller then checks).
    ///
    /// The header must be a JSON object without `crit`, with `alg` RS256, ES256 or EdDSA (never `none`, never HS*)
    /// and `kid`, when present, a string; `jku`, `x5u`, `jwk` and the like are ignored: a key never comes from the
    /// token itself. The keys tried: with a `kid`, the keys of that `kid` whose algorithm is the
    /// header's; without, every key of the header's algorithm. The token verifies when one of them verifies it.
    /// - Throws: `JWTError` `.malformed`, `.criticalHeader`, `.unsupportedAlgorithm`, `.unknownKey` (no key of that
    ///   `kid`, or none of that algorithm without one: fetch the JWKS again, once), `.algorithmMismatch` (the `kid`'s
    ///   keys are of another algorithm), `.badSignature`.
    public func verify(_ token: String) throws(JWTError) -> JWTClaims {
        guard token.utf8.count <= Self.maximumTokenLength else { throw JWTError(.malformed, "token too long") }
        var token = token
        // String.withUTF8 rethrows untyped errors; carry the typed one out in a Result.
        return try token.withUTF8 { bytes in
            Result { () throws(JWTError) in try verify(CompactJWS(bytes)) }
        }.get()
    }

    private func verify(_ jws: CompactJWS) throws(JWTError) -> JWTClaims {
        let header = try jws.decodedHeader()
        let kid = header.kid
        guard let alg = header.alg else { throw JWTError(.malformed, "alg is missing") }
        guard let algorithm = PublishedKey.Algorithm(rawValue: alg) else {
            throw JWTError(.unsupportedAlgorithm, "alg is not RS256, ES256 or EdDSA")
        }
        let candidates: [PublishedKey]
        if let kid {
            let named = keys.filter { $0.isNamed(kid) }
            guard !named.isEmpty else { throw JWTError(.unknownKey, "kid names no published key") }
            candidates = named.filter { $0.algorithm == algorithm }
            guard !candidates.isEmpty else {
                throw JWTError(.algorithmMismatch, "alg does not match the algorithm of the kid's key")
            }
        } else {
            candidates = keys.filter { $0.algorithm == algorithm }
            guard !candidates.isEmpty else { throw JWTError(.unknownKey, "no published key of this algorithm") }
        }
        let signature = try jws.signatureBytes()
        guard candidates.contains(where: { $0.verifies(signature: signature, message: jws.signingInput) }) else {
            throw JWTError(.badSignature, "signature does not verify")
        }
        return try jws.claims()
    }
}
