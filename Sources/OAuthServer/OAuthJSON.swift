import HTTP1
import JSON
import ServerKit

/// The JSON answers of the endpoints a browser app may call from another origin (metadata, token, register,
/// revoke): `Cache-Control: no-store` and `Access-Control-Allow-Origin: *` without credentials
/// (docs/decisions/0023).
enum OAuthJSON {
    static func response(_ status: HTTPStatus, _ body: JSONValue, cache: String = "no-store") -> HTTPResponse {
        var response = HTTPResponse.noStoreJSON(status, body)
        response.headers.replaceOrAdd("Cache-Control", cache)
        if cache == "no-store" { response.headers.replaceOrAdd("Pragma", "no-cache") }
        response.headers.replaceOrAdd("Access-Control-Allow-Origin", "*")
        return response
    }

    /// The answer to a CORS preflight of those endpoints.
    static func preflight() -> HTTPResponse {
        var response = HTTPResponse(status: .noContent)
        response.headers.replaceOrAdd("Access-Control-Allow-Origin", "*")
        response.headers.replaceOrAdd("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        response.headers.replaceOrAdd("Access-Control-Allow-Headers", "Content-Type, Authorization")
        response.headers.replaceOrAdd("Access-Control-Max-Age", "600")
        return response
    }
}
