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
}

extension AgentAuthService {
    /// The 404 or 405 answer for a path under `/api/v1/` that no route matched, in the surface's error shape.
    public func unmatchedResponse(_ status: HTTPStatus) -> HTTPResponse {
        failure(status == .methodNotAllowed ? .methodNotAllowed : .notFound)
    }
}
