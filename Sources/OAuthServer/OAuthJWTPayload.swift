import AuthCrypto
import JSON
import JWT

/// The payload of a compact JWS read without any check: to find which client an assertion claims to be before its
/// keys are known, or to read `exp` and `iat` of a token already verified. Never a decision on its own.
enum OAuthJWTPayload {
    /// The payload of `token` when it is three dot-separated parts whose middle one is base64url of a JSON object;
    /// nil otherwise (or past ``PublishedKeySet/maximumTokenLength``).
    static func read(_ token: String) -> JSONValue? {
        part(1, of: token)
    }

    /// The header of `token`, read likewise (its `typ`, once the signature over it verified).
    static func header(_ token: String) -> JSONValue? {
        part(0, of: token)
    }

    private static func part(_ index: Int, of token: String) -> JSONValue? {
        guard token.utf8.count <= PublishedKeySet.maximumTokenLength else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[index])),
            let claims = try? JSONValue.parse(payload, limits: .init(maximumDepth: 8)), claims.objectValue != nil
        else { return nil }
        return claims
    }
}
