import HTTP1

extension AgentAuthError {
    /// 404 under `/api/v1/`: no such endpoint.
    static let notFound = AgentAuthError(
        status: 404, message: "Not found",
        hint: "The agent API is POST /api/v1/challenge, POST /api/v1/session and POST /api/v1/capability.",
        anchor: "auth-flow-reference")
    /// 405 under `/api/v1/`: the endpoint exists for another method (see `Allow`).
    static let methodNotAllowed = AgentAuthError(
        status: 405, message: "Method not allowed",
        hint: "Every agent endpoint takes POST; the Allow header lists the methods this path answers.",
        anchor: "auth-flow-reference")
    /// 413: a body over the endpoint's limit, refused before it is read.
    static let bodyTooLarge = AgentAuthError(
        status: 413, message: "Request body too large",
        hint: "Send only {\"powHex\",\"nonce\",\"username\"} or {\"powHex\",\"nonce\",\"apiKey\"} to POST /api/v1/session; "
            + "the other endpoints take no body.",
        anchor: "session")

    /// Any other refusal of the HTTP layer (malformed request, headers too large, timeout): the status's
    /// reason phrase, which names the refusal without echoing what was sent.
    static func transport(_ status: HTTPStatus) -> AgentAuthError {
        AgentAuthError(
            status: status.code, message: status.reason,
            hint: "Send a well-formed HTTP/1.1 request with small headers, as in the curl lines of llms.txt, and retry.",
            anchor: "errors")
    }
}

extension AgentAuthService {
    /// The answer under `/api/v1/` when no route matched (404, 405) or the HTTP layer refused the request
    /// (400, 408, 413, 414, 431, 501, 505), in the surface's error shape.
    public func unmatchedResponse(_ status: HTTPStatus) -> HTTPResponse {
        switch status {
        case .notFound: return failure(.notFound)
        case .methodNotAllowed: return failure(.methodNotAllowed)
        case .payloadTooLarge: return failure(.bodyTooLarge)
        default: return failure(.transport(status))
        }
    }
}
