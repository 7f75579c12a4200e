import AuthCrypto

/// PKCE with `S256` only (RFC 7636; OAuth 2.1): the verifier's form and its match with the stored challenge.
enum OAuthPKCE {
    /// Whether `challenge` can be an S256 challenge: 43 base64url characters (a SHA-256).
    static func challengeWellFormed(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && challenge.utf8.allSatisfy(isBase64URL)
    }

    /// Whether `verifier` is 43 to 128 unreserved characters and base64url(SHA-256(verifier)) is `challenge`
    /// (compared in constant time).
    static func verifies(_ verifier: String, challenge: String) -> Bool {
        let bytes = Array(verifier.utf8)
        guard (43...128).contains(bytes.count), bytes.allSatisfy({ isBase64URL($0) || $0 == 0x2E || $0 == 0x7E }) else {
            return false
        }
        return constantTimeEquals(Array(Base64URL.encode(SHA256.hash(bytes)).utf8), Array(challenge.utf8))
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D || byte == 0x5F
    }
}
