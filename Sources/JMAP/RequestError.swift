import HTTP1
import JSON
import ServerKit

/// A request-level error (RFC 8620 section 3.6.1): an RFC 7807 problem document with status 400, or 401 for
/// authentication.
struct RequestError: Error, Sendable, Equatable {
    let status: HTTPStatus
    let type: String
    let detail: String
    var limit: String? = nil

    static let notJSON = RequestError(
        status: .badRequest, type: "urn:ietf:params:jmap:error:notJSON",
        detail: "The request body is not JSON (Content-Type: application/json, UTF-8, I-JSON).")
    static func notRequest(_ detail: String) -> RequestError {
        RequestError(status: .badRequest, type: "urn:ietf:params:jmap:error:notRequest", detail: detail)
    }
    static func unknownCapability(_ name: String) -> RequestError {
        RequestError(
            status: .badRequest, type: "urn:ietf:params:jmap:error:unknownCapability",
            detail: "`using` names \(name), which this server does not support; see the session's capabilities.")
    }
    static func limit(_ name: String, _ detail: String) -> RequestError {
        RequestError(status: .badRequest, type: "urn:ietf:params:jmap:error:limit", detail: detail, limit: name)
    }
    static let overQuota = RequestError(
        status: .payloadTooLarge, type: "urn:ietf:params:jmap:error:overQuota",
        detail: "The blob would pass the account's quota; uploads count against it for an hour.")
    static func uploadVolume(_ refusal: RateLimitDecision) -> RequestError {
        RequestError(
            status: .tooManyRequests, type: "about:blank",
            detail: "Too many bytes uploaded from this address; retry after \(refusal.retryAfterSeconds) s.")
    }
    static func tooManyRequests(_ rateClass: JMAPService.RateClass, _ decision: RateLimitDecision) -> RequestError {
        RequestError(
            status: .tooManyRequests, type: "about:blank",
            detail: "Too many \(rateClass == .upload ? "uploads" : "requests") from this address; retry after "
                + "\(decision.retryAfterSeconds) s.")
    }
    /// What an unforeseen failure is answered with: 503 or a bare 500, no internals.
    static func serverFailure(_ failure: ServiceFailure) -> RequestError {
        RequestError(
            status: failure.status, type: "about:blank", detail: "The server could not complete the request; try again.")
    }
    static let unauthorized = RequestError(
        status: .unauthorized, type: "about:blank",
        detail: "Send `Authorization: Bearer <capability JWT>` from POST /api/v1/capability; it lasts a few minutes.")

    var response: HTTPResponse {
        var pairs: [(String, JSONValue)] = [
            ("type", .string(type)), ("status", .int(Int64(status.code))), ("detail", .string(detail)),
        ]
        if let limit { pairs.append(("limit", .string(limit))) }
        var response = HTTPResponse(
            status: status, headers: ["Content-Type": "application/problem+json", "Cache-Control": "no-store"],
            body: JSONValue.object(pairs).serialize())
        if status == .unauthorized { response.headers.add("WWW-Authenticate", "Bearer realm=\"jmap\"") }
        return response
    }
}
