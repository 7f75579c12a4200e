import HTTP1
import JSON

/// An OAuth error as the token, register and revoke endpoints answer it (`{"error","error_description"}`, status
/// 400 for every code here, `invalid_client` included: docs/decisions/0015), and as the authorization
/// endpoint puts it in a redirect.
public struct OAuthError: Error, Sendable, Equatable {
    /// The RFC 6749 / 7591 / 8707 code (`invalid_grant`, `invalid_redirect_uri`, ...).
    public let code: String
    /// Words for a developer; never internals.
    public let description: String
    /// The HTTP status. 400 for all but `temporarily_unavailable` (503), `server_error` (500), and `invalid_client`
    /// answered to a client that authenticated with `Authorization: Basic` (401, RFC 6749 section 5.2).
    public let status: HTTPStatus
    /// The `WWW-Authenticate` challenge of a 401, if any.
    public let challenge: String?

    init(_ code: String, _ description: String, status: HTTPStatus = .badRequest, challenge: String? = nil) {
        self.code = code
        self.description = description
        self.status = status
        self.challenge = challenge
    }

    static func invalidRequest(_ text: String) -> OAuthError { OAuthError("invalid_request", text) }
    static func invalidClient(_ text: String) -> OAuthError { OAuthError("invalid_client", text) }
    /// `invalid_client` for a client that authenticated with `Authorization: Basic`: 401 with a Basic challenge
    /// (RFC 6749 section 5.2).
    static func invalidBasicClient(_ text: String) -> OAuthError {
        OAuthError("invalid_client", text, status: .unauthorized, challenge: #"Basic realm="oauth", charset="UTF-8""#)
    }
    static func invalidGrant(_ text: String) -> OAuthError { OAuthError("invalid_grant", text) }
    static func invalidScope(_ text: String) -> OAuthError { OAuthError("invalid_scope", text) }
    static func invalidTarget(_ text: String) -> OAuthError { OAuthError("invalid_target", text) }
    static func unsupportedGrantType(_ text: String) -> OAuthError { OAuthError("unsupported_grant_type", text) }
    static func unauthorizedClient(_ text: String) -> OAuthError { OAuthError("unauthorized_client", text) }
    static func invalidRedirectURI(_ text: String) -> OAuthError { OAuthError("invalid_redirect_uri", text) }
    static func invalidClientMetadata(_ text: String) -> OAuthError { OAuthError("invalid_client_metadata", text) }
    static let overloaded = OAuthError(
        "temporarily_unavailable", "The server is busy; try again shortly.", status: .serviceUnavailable)
    static let unavailable = OAuthError(
        "temporarily_unavailable", "The server cannot reach its storage; try again shortly.", status: .serviceUnavailable)
    static let serverError = OAuthError("server_error", "The server could not complete the request.", status: .internalServerError)
    static let tooManyRequests = OAuthError(
        "slow_down", "Too many requests from this address; wait for Retry-After.", status: .tooManyRequests)

    /// The JSON response: `Cache-Control: no-store`, CORS `*`.
    var response: HTTPResponse {
        var response = OAuthJSON.response(
            status, .object([("error", .string(code)), ("error_description", .string(description))]))
        if let challenge { response.headers.add("WWW-Authenticate", challenge) }
        return response
    }
}
