import AuthCrypto
import HTTP1
import MailboxAccounts

/// The operator's bearer (`POSTERN_OPERATOR_TOKEN`), for every route behind it: the operator's API (`OperatorAPI`) and
/// the SMTP failure injection's `/api/operator/chaos` (`MailSandbox`). Digests are compared in constant time, so
/// neither the token's bytes nor its length show in the time a refusal takes.
package struct OperatorBearer: Sendable {
    private let expected: [UInt8]

    /// The bearer of `configuration`; nil when no operator token is set, and the routes behind it do not exist then.
    package init?(_ configuration: MailboxConfiguration) {
        guard let token = configuration.operatorToken, !token.isEmpty else { return nil }
        expected = SHA256.hash(token)
    }

    /// Whether `request` carries the operator's token.
    package func admits(_ request: HTTPRequest) -> Bool {
        guard let presented = request.bearerToken else { return false }
        return constantTimeEquals(SHA256.hash(presented), expected)
    }

    /// The answer to a request without it: 401 `{"error":"unauthorized"}` with `WWW-Authenticate: Bearer`.
    package static var refusal: HTTPResponse {
        var refusal = HTTPResponse.json(.unauthorized, #"{"error":"unauthorized"}"#)
        refusal.headers.replaceOrAdd("WWW-Authenticate", "Bearer")
        return refusal
    }

    /// `handler` behind the bearer.
    package func guarding(
        _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> @Sendable (MailboxCall) async throws -> HTTPResponse {
        { call in admits(call.request) ? try await handler(call) : Self.refusal }
    }
}

extension MailboxService {
    /// `handler` behind the operator's bearer, for the operator routes another target adds (the SMTP failure
    /// injection's `/api/operator/chaos`). Nil when `POSTERN_OPERATOR_TOKEN` is unset: such a route then does not
    /// exist either.
    public func operatorOnly(
        _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> (@Sendable (MailboxCall) async throws -> HTTPResponse)? {
        OperatorBearer(configuration)?.guarding(handler)
    }
}
