import ServerKit

/// Every error the mailbox surface answers with: an HTTP status and the `{"error":"<code>"}` code.
///
/// The codes with spaces are Mail.td's own texts and are kept verbatim (CONTRACT.md 2.2).
public struct MailboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// HTTP status code of the answer.
    public let status: Int
    /// The value of `error` in the body.
    public let code: String

    /// Creates an error answer.
    public init(status: Int, code: String) {
        self.status = status
        self.code = code
    }

    /// `"<status> <code>"`, never any secret.
    public var description: String { "\(status) \(code)" }

    /// 400: the body is not a JSON object or a field has the wrong type (not a Mail.td code).
    public static let invalidRequest = MailboxError(status: 400, code: "invalid_request")
    /// 400: the address is not `local@domain` with a valid local part.
    public static let invalidAddress = MailboxError(status: 400, code: "invalid_address")
    /// 400: the domain is not offered (or is Pro-only and the caller is not Pro).
    public static let invalidDomain = MailboxError(status: 400, code: "invalid_domain")
    /// 400: the password is under 6 characters.
    public static let passwordTooShort = MailboxError(status: 400, code: "password_too_short")
    /// 400: the password is over 4 KiB of UTF-8 (refused before any hashing; not a Mail.td code).
    public static let passwordTooLong = MailboxError(status: 400, code: "password_too_long")
    /// 400: `auth_key` (Mail.td's v2 protocol) is not 64 hex characters (not a Mail.td code).
    public static let invalidAuthKey = MailboxError(status: 400, code: "invalid_auth_key")
    /// 400: a free account creation without a `pow` object.
    public static let proofOfWorkRequired = MailboxError(status: 400, code: "proof of work required")
    /// 401: missing, bad, expired or superseded token.
    public static let invalidOrExpiredToken = MailboxError(status: 401, code: "invalid_or_expired_token")
    /// 401: wrong address/email or password (one answer for both).
    public static let invalidCredentials = MailboxError(status: 401, code: "invalid_credentials")
    /// 403: the challenge id is unknown, expired or already used.
    public static let challengeNotFound = MailboxError(status: 403, code: "challenge not found or expired")
    /// 403: the nonce does not give enough leading zero bits.
    public static let invalidProofOfWork = MailboxError(status: 403, code: "invalid proof of work")
    /// 403: the Pro user already owns `max_accounts` accounts.
    public static let accountLimitReached = MailboxError(status: 403, code: "account_limit_reached")
    /// 403: a mailbox token used on another account.
    public static let forbidden = MailboxError(status: 403, code: "forbidden")
    /// 404: no such account (or not one the Pro user owns), no such token.
    public static let notFound = MailboxError(status: 404, code: "not_found")
    /// A sandbox attachment index that is not a number, or names no attachment of the message.
    public static let invalidIndex = MailboxError(status: 400, code: "invalid_index")
    /// 403: the Pro user already has `max_domains` custom domains.
    public static let domainLimitReached = MailboxError(status: 403, code: "domain_limit_reached")
    /// 409: the custom domain belongs to someone (another Pro user or an owner holds it verified, or the service
    /// itself serves it), or the user claims it already.
    public static let domainAlreadyExists = MailboxError(status: 409, code: "domain_already_exists")
    /// 409: accounts of the user are still on the custom domain; it cannot be deleted until they are.
    public static let domainInUse = MailboxError(status: 409, code: "domain_in_use")
    /// 410: a custom domain stayed pending past its verification window (the claim is deleted).
    public static let domainExpired = MailboxError(status: 410, code: "domain_expired")
    /// 400: a webhook URL that is not an absolute `https` URL, or names a target the outbound policy refuses.
    public static let invalidURL = MailboxError(status: 400, code: "invalid_url")
    /// 400: `events` is not a list of known event types (only `email.received` exists).
    public static let invalidEvents = MailboxError(status: 400, code: "invalid_events")
    /// 403: the Pro user already has their one webhook.
    public static let webhookLimitReached = MailboxError(status: 403, code: "webhook_limit_reached")
    /// 501: subscriptions are not managed here (a self-hosted server has no payment provider).
    public static let billingNotAvailable = MailboxError(status: 501, code: "billing_not_available")
    /// 409: the address is already in use.
    public static let addressTaken = MailboxError(status: 409, code: "address_taken")
    /// 429: a rate limit refused the request.
    public static let rateLimitExceeded = MailboxError(status: 429, code: "rate_limit_exceeded")
    /// 500: anything unexpected (logged by the app, never detailed to the client).
    public static let internalError = MailboxError(status: 500, code: "internal_error")
    /// 503: the worker pool is full or the database is unavailable.
    public static let serviceUnavailable = MailboxError(status: 503, code: "service_unavailable")
}

extension MailboxError {
    /// The mailbox answer for a failure of the shared table: 503 `service_unavailable` or 500
    /// `internal_error`.
    package init(_ failure: ServiceFailure) {
        switch failure {
        case .unavailable: self = .serviceUnavailable
        case .internalError: self = .internalError
        }
    }
}
