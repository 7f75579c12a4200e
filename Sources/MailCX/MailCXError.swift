import HTTP1
import JSON
import ServerKit

/// Every error mail.cx's REST API answers with: a status and `{"error": "<code>"}`, mail.cx's shape. Codes are fixed
/// words; nothing of the request is echoed.
public struct MailCXError: Error, Sendable, Equatable {
    /// The HTTP status.
    public let status: HTTPStatus
    /// The `error` member.
    public let code: String

    /// 400: the address is not `local@domain` with mail.cx's local-part rules (or is longer than 254 bytes).
    public static let invalidAddress = MailCXError(status: .badRequest, code: "invalid_address")
    /// 400: `since` is not a cursor this server gave (a `next_since`).
    public static let invalidSince = MailCXError(status: .badRequest, code: "invalid_since")
    /// 400: `count` is not a whole number from 1 to 50.
    public static let invalidCount = MailCXError(status: .badRequest, code: "invalid_count")
    /// 400: `limit` is not a whole number from 1 to 50.
    public static let invalidLimit = MailCXError(status: .badRequest, code: "invalid_limit")
    /// 400: an attachment index that is not a whole number.
    public static let invalidIndex = MailCXError(status: .badRequest, code: "invalid_index")
    /// 401: an `x-api-token` that is not a live Pro API token.
    public static let invalidToken = MailCXError(status: .unauthorized, code: "invalid_token")
    /// 403: the address is on a domain this surface does not serve (nor one of the token's accounts).
    public static let domainNotAllowed = MailCXError(status: .forbidden, code: "domain_not_allowed")
    /// 404: no such email at an address the caller may read (another surface's message included).
    public static let emailNotFound = MailCXError(status: .notFound, code: "email_not_found")
    /// 404: no such attachment of the email.
    public static let attachmentNotFound = MailCXError(status: .notFound, code: "attachment_not_found")
    /// 404: no such route.
    public static let notFound = MailCXError(status: .notFound, code: "not_found")
    /// 405: the route exists, not with this method.
    public static let methodNotAllowed = MailCXError(status: .methodNotAllowed, code: "method_not_allowed")
    /// 429: over the client's rate.
    public static let rateLimitExceeded = MailCXError(status: .tooManyRequests, code: "rate_limit_exceeded")

    /// The answer for `failure` (storage unavailable: 503; anything else: 500).
    public init(_ failure: ServiceFailure) {
        self.init(
            status: failure.status, code: failure == .unavailable ? "service_unavailable" : "internal_error")
    }

    init(status: HTTPStatus, code: String) {
        self.status = status
        self.code = code
    }

    /// `{"error": code}` with the status, `Cache-Control: no-store`.
    public var response: HTTPResponse {
        HTTPResponse.noStoreJSON(status, .object([("error", .string(code))]))
    }
}
