import AuthCrypto
import JSON

/// A compact JWS (RFC 7515 section 7.1) split at its two dots, nothing decoded yet: what Postern's own tokens
/// (``JWTKeySet``) and other issuers' (``PublishedKeySet``) are read through, so that both split, decode the header and
/// read the claims the same way.
struct CompactJWS {
    /// The header's base64url text.
    let header: UnsafeBufferPointer<UInt8>
    /// The payload's base64url text.
    let payload: UnsafeBufferPointer<UInt8>
    /// The signature's base64url text.
    let signature: UnsafeBufferPointer<UInt8>
    /// `header.payload`, what the signature signs.
    let signingInput: UnsafeBufferPointer<UInt8>

    /// Splits `bytes`.
    /// - Throws: `JWTError` `.malformed` unless there are exactly three segments with a non-empty header and payload,
    ///   `.badSignature` for an empty signature.
    init(_ bytes: UnsafeBufferPointer<UInt8>) throws(JWTError) {
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
        header = UnsafeBufferPointer(rebasing: bytes[0..<firstDot])
        payload = UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])
        signature = UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...])
        signingInput = UnsafeBufferPointer(rebasing: bytes[0..<secondDot])
        guard !header.isEmpty, !payload.isEmpty else { throw JWTError(.malformed, "empty segment") }
        guard !signature.isEmpty else { throw JWTError(.badSignature, "empty signature") }
    }

    /// The header members that choose a key, as strings; nil when absent. Other members (`jku`, `x5u`, `jwk`...)
    /// are never used to find or build a key.
    struct Header {
        /// `alg`.
        var alg: String?
        /// `kid`.
        var kid: String?
        /// `typ`.
        var typ: String?
    }

    /// The header: a JSON object of at most 1 KiB of base64url, four levels deep, without `crit`.
    /// - Throws: `JWTError` `.malformed` (also for an `alg`, `kid` or `typ` that is not a string), `.criticalHeader`.
    func decodedHeader() throws(JWTError) -> Header {
        guard header.count <= 1024, let decoded = Base64URL.decode(header) else {
            throw JWTError(.malformed, "header is not base64url")
        }
        guard case .object(let members)? = try? JSONValue.parse(decoded, limits: .init(maximumDepth: 4)) else {
            throw JWTError(.malformed, "header is not a JSON object")
        }
        var result = Header()
        for (name, value) in members {
            switch name {
            case "crit": throw JWTError(.criticalHeader, "crit header is not supported")
            case "alg", "kid", "typ":
                guard case .string(let text) = value else { throw JWTError(.malformed, "\(name) is not a string") }
                switch name {
                case "alg": result.alg = text
                case "kid": result.kid = text
                default: result.typ = text
                }
            default: continue
            }
        }
        return result
    }

    /// The signature's bytes.
    /// - Throws: `JWTError` `.badSignature` when it is not base64url.
    func signatureBytes() throws(JWTError) -> [UInt8] {
        guard let bytes = Base64URL.decode(signature) else {
            throw JWTError(.badSignature, "signature is not base64url")
        }
        return bytes
    }

    /// The payload's claims: a JSON object, eight levels deep. Read only once the signature verified.
    /// - Throws: `JWTError` `.malformed`.
    func claims() throws(JWTError) -> JWTClaims {
        guard let decoded = Base64URL.decode(payload) else { throw JWTError(.malformed, "payload is not base64url") }
        guard case .object(let members)? = try? JSONValue.parse(decoded, limits: .init(maximumDepth: 8)) else {
            throw JWTError(.malformed, "payload is not a JSON object")
        }
        return JWTClaims(validated: members)
    }
}
