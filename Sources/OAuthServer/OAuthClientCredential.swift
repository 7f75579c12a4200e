import AuthCrypto
import HTTP1

/// What a request to the token, revocation or introspection endpoint presents to authenticate its client, read purely
/// from its `Authorization` header and form fields, before any lookup: the one reader every endpoint (and any grant
/// added later) shares.
///
/// Rules, in order (RFC 6749 section 2.3, RFC 7523 section 2.2):
/// 1. `Authorization: Basic` is `client_secret_basic`: base64 of `id:secret`, each form-urlencoded; a `client_id`
///    in the body must then be the same id, and neither `client_secret` nor `client_assertion` may come too (one
///    method per request). A malformed Basic credential is `invalid_client`, 401.
/// 2. `client_assertion_type` is `private_key_jwt`: it must be `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`
///    with a `client_assertion`; `client_id` is optional (the assertion's `sub` names the client) and `client_secret`
///    may not come too.
/// 3. `client_secret` is `client_secret_post`, with `client_id`.
/// 4. `client_id` alone is a public client (`none`).
/// Any other `Authorization` scheme is not client authentication and is ignored.
public enum OAuthClientCredential: Sendable, Equatable {
    /// `client_secret_basic`.
    case basic(clientID: String, secret: String)
    /// `client_secret_post`.
    case post(clientID: String, secret: String)
    /// `private_key_jwt`: the assertion, and the `client_id` the body named, if any.
    case assertion(clientID: String?, assertion: String)
    /// A public client's `client_id`.
    case none(clientID: String)

    /// The RFC 7523 client assertion type.
    public static let jwtBearerType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest client id, secret or assertion read, in bytes.
    static let maximumLength = 16 * 1024

    /// Whether the client authenticated through the `Authorization` header (its refusal is then 401).
    public var viaHeader: Bool {
        if case .basic = self { return true }
        return false
    }

    /// Reads the credential of a request.
    /// - Parameters:
    ///   - authorization: the `Authorization` header, if any.
    ///   - fields: the form fields.
    /// - Throws: ``OAuthError`` `invalid_client` (401 with a Basic challenge for a bad Basic credential) for a
    ///   credential that is malformed, missing or of two methods at once; `invalid_request` for a body whose
    ///   `client_id` differs from the Basic one.
    public static func read(authorization: String?, fields: [String: String]) throws(OAuthError) -> Self {
        let secret = nonEmpty(fields["client_secret"])
        let assertion = nonEmpty(fields["client_assertion"])
        let assertionType = nonEmpty(fields["client_assertion_type"])
        let bodyID = nonEmpty(fields["client_id"])
        if let basic = basicCredential(authorization) {
            guard let (id, password) = decodeBasic(basic) else {
                throw .invalidBasicClient("The Basic credential is not base64 of client_id:client_secret.")
            }
            guard secret == nil, assertion == nil, assertionType == nil else {
                throw .invalidBasicClient("Use one client authentication method per request.")
            }
            if let bodyID, bodyID != id {
                throw .invalidRequest("client_id differs from the Basic credential's.")
            }
            return .basic(clientID: id, secret: password)
        }
        if assertionType != nil || assertion != nil {
            guard assertionType == jwtBearerType else {
                throw .invalidClient("client_assertion_type must be \(jwtBearerType).")
            }
            guard let assertion, assertion.utf8.count <= maximumLength else {
                throw .invalidClient("client_assertion is required with client_assertion_type.")
            }
            guard secret == nil else { throw .invalidClient("Use one client authentication method per request.") }
            return .assertion(clientID: bodyID, assertion: assertion)
        }
        guard let bodyID, bodyID.utf8.count <= maximumLength else {
            throw .invalidClient("Client authentication is required (client_id and a credential).")
        }
        if let secret {
            guard secret.utf8.count <= maximumLength else { throw .invalidClient("client_secret is too long.") }
            return .post(clientID: bodyID, secret: secret)
        }
        return .none(clientID: bodyID)
    }

    /// The credential part of `Authorization: Basic <credential>` (the scheme in any case); nil for another scheme.
    static func basicCredential(_ header: String?) -> Substring? {
        guard let header else { return nil }
        let trimmed = header.drop(while: { $0 == " " })
        guard trimmed.count > 6, trimmed.prefix(6).lowercased() == "basic " else { return nil }
        return trimmed.dropFirst(6).drop(while: { $0 == " " })
    }

    /// The client id and secret of a Basic credential: base64 of `id:secret`, split at the first colon, each part
    /// form-urlencoded (RFC 6749 section 2.3.1); nil when it is not base64, not UTF-8, has no colon or an empty id.
    static func decodeBasic(_ credential: Substring) -> (String, String)? {
        let text = String(credential).trimmingSuffix(" ")
        guard text.utf8.count <= maximumLength * 2, let bytes = Base64.decode(text),
            let decoded = String(validating: bytes, as: UTF8.self),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        let id = PercentDecoding.decode(decoded[..<colon], plusAsSpace: true)
        let secret = PercentDecoding.decode(decoded[decoded.index(after: colon)...], plusAsSpace: true)
        guard !id.isEmpty else { return nil }
        return (id, secret)
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}

extension String {
    fileprivate func trimmingSuffix(_ character: Character) -> String {
        var text = self
        while text.last == character { text.removeLast() }
        return text
    }
}
