import HTTP1
import JSON
import ServerKit

/// A per-object error of a `/set` method (RFC 8620 section 5.3).
struct SetError: Error, Sendable {
    let type: String
    let description: String
    var properties: [String]? = nil
    /// `blobNotFound`: the blob ids it could not find.
    var notFound: [JSONValue]? = nil
    /// `invalidRecipients`: the addresses refused.
    var invalidRecipients: [String]? = nil

    static func invalidProperties(_ description: String, _ properties: [String]) -> SetError {
        SetError(type: "invalidProperties", description: description, properties: properties)
    }

    static let notFound = SetError(type: "notFound", description: "No such object in this account.")

    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("type", .string(type)), ("description", .string(description))]
        if let properties { pairs.append(("properties", .array(properties.map(JSONValue.string)))) }
        if let notFound { pairs.append(("notFound", .array(notFound))) }
        if let invalidRecipients { pairs.append(("invalidRecipients", .array(invalidRecipients.map(JSONValue.string)))) }
        return .object(pairs)
    }
}

/// A request-level error (RFC 8620 section 3.6.1): an RFC 7807 problem document with status 400, or 401 for
/// authentication.
struct RequestError: Error, Sendable {
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
