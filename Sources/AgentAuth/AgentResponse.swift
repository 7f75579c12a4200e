import HTTP1
import ServerKit

/// Builds the agent surface's responses: every one is JSON (or Markdown for `/llms.txt`) and carries
/// `Cache-Control: no-store`.
enum AgentResponse {
    /// A JSON success, with the token in `Authorization: Bearer <token>` when there is one.
    static func json(_ status: HTTPStatus, _ body: String, bearer: String? = nil) -> HTTPResponse {
        json(status, Array(body.utf8), bearer: bearer)
    }

    /// A JSON success from UTF-8 bytes, with the token in `Authorization: Bearer <token>` when there is one.
    static func json(_ status: HTTPStatus, _ body: [UInt8], bearer: String? = nil) -> HTTPResponse {
        var response = HTTPResponse.noStoreJSON(status, body)
        if let bearer {
            response.headers.add("Authorization", "Bearer " + bearer)
        }
        return response
    }

    /// `{"error":{"message","hint","docs_url"}}` with `docs_url` = `<publicURL>/llms.txt#<anchor>`.
    ///
    /// A 401 also carries `WWW-Authenticate: Bearer` (RFC 6750); a 503 carries `Retry-After: 2`.
    static func error(_ error: AgentAuthError, publicURL: String) -> HTTPResponse {
        let body = AgentJSON.object([
            (
                "error",
                AgentJSON.object([
                    ("message", AgentJSON.string(error.message)),
                    ("hint", AgentJSON.string(error.hint)),
                    ("docs_url", AgentJSON.string(publicURL + "/llms.txt#" + error.anchor)),
                ])
            )
        ])
        var response = json(HTTPStatus(code: error.status), body)
        if error.status == 401 {
            response.headers.add("WWW-Authenticate", "Bearer")
        } else if error.status == 503 {
            response.headers.setRetryAfter(seconds: 2)
        }
        return response
    }
}
