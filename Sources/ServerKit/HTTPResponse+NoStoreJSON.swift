import HTTP1
import JSON

extension HTTPResponse {
    /// An API's JSON answer: `Content-Type: application/json; charset=utf-8` and `Cache-Control: no-store` (every
    /// API answer here is about one caller: tokens, accounts, mail, refusals). The one helper every surface builds
    /// its JSON answers on, adding its own headers (CORS, `Authorization`, `Retry-After`) to what it returns.
    /// - Parameters:
    ///   - status: the status.
    ///   - value: the body.
    public static func noStoreJSON(_ status: HTTPStatus, _ value: JSONValue) -> HTTPResponse {
        noStoreJSON(status, value.serialize())
    }

    /// An API's JSON answer from JSON text already serialized (not checked), with the headers of the `JSONValue`
    /// variant.
    public static func noStoreJSON(_ status: HTTPStatus, _ body: [UInt8]) -> HTTPResponse {
        var response = HTTPResponse.json(status, body)
        response.headers.add("Cache-Control", "no-store")
        return response
    }
}
