import MailboxAccounts
import HTTP1
import JSON
import JWT
import ServerKit
import Time

/// Reading request bodies and writing answers in the surface's shapes.
public enum MailboxJSON {
    /// The body as a JSON object, or `.invalidRequest`.
    public static func object(_ body: [UInt8]) throws(MailboxError) -> RequestBody {
        guard let object = RequestBody(json: body) else { throw .invalidRequest }
        return object
    }

    /// `name` as a string: `nil` when absent or null, `.invalidRequest` when another type.
    public static func string(_ object: RequestBody, _ name: String) throws(MailboxError) -> String? {
        do {
            return try object.string(name)
        } catch {
            throw .invalidRequest
        }
    }

    /// An answer with a JSON body and `Cache-Control: no-store`.
    public static func response(_ status: HTTPStatus, _ pairs: [(String, JSONValue)]) -> HTTPResponse {
        HTTPResponse.noStoreJSON(status, .object(pairs))
    }

    /// `{"error":"<code>"}` with the error's status; a 503 also says when to come back (`Retry-After: 1`, as the
    /// remote-hash surface says it): a full worker pool or a database failover passes within seconds.
    public static func response(_ error: MailboxError) -> HTTPResponse {
        var answer = response(HTTPStatus(code: error.status), [("error", .string(error.code))])
        if error.status == 503 { answer.headers.setRetryAfter(seconds: 1) }
        return answer
    }

    /// 204 with `Cache-Control: no-store` and no body.
    public static func noContent() -> HTTPResponse {
        HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])
    }

    /// A Unix time as a JSON RFC 3339 string, or null.
    public static func time(_ seconds: Int64?) -> JSONValue {
        guard let seconds else { return .null }
        return .string(RFC3339.format(seconds))
    }
}
