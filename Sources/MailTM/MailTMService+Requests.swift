import HTTP1
import JSON
import MailboxAccounts
import ServerKit

/// What the handlers share: the bearer's account, the JSON body, the answers.
extension MailTMService {
    /// The live account the request's mailbox token speaks for: 401 `JWT Token not found` without a bearer,
    /// `Invalid JWT Token` for anything but a live mailbox token (the Mail.td surface's rule).
    func account(_ call: Call) async throws -> MailboxAccountSummary {
        guard let bearer = call.request.bearerToken else { throw MailTMError.tokenNotFound }
        do {
            return try await accounts.account(mailboxToken: bearer)
        } catch let error as MailboxError where error == .invalidOrExpiredToken {
            throw MailTMError.invalidToken
        }
    }

    /// The body as a JSON object. A `Content-Type` other than JSON's (`application/json`, `application/ld+json`,
    /// `application/merge-patch+json`) is a 415; a body that is not one JSON object (within the strict parser's
    /// limits: no duplicate key, no deep nesting) a 400.
    static func body(_ request: HTTPRequest) throws(MailTMError) -> RequestBody {
        if let type = request.mediaType, !jsonTypes.contains(type) { throw .unsupportedMediaType }
        guard let body = RequestBody(json: request.body) else { throw .badRequest("Syntax error") }
        return body
    }

    /// The media types a body may be sent as.
    static let jsonTypes: Set<String> = ["application/json", "application/ld+json", "application/merge-patch+json"]

    /// String member `name` of `body`, nil when absent or null.
    /// - Throws: 400 when it is another type.
    static func string(_ body: RequestBody, _ name: String) throws(MailTMError) -> String? {
        do {
            return try body.string(name)
        } catch {
            throw .badRequest("The type of the \"\(name)\" attribute must be \"string\".")
        }
    }

    /// A JSON-LD answer.
    static func answer(_ status: HTTPStatus, _ value: JSONValue) -> HTTPResponse {
        var response = HTTPResponse.noStoreJSON(status, value)
        response.headers.replaceOrAdd("Content-Type", MailTMJSON.contentType)
        return response
    }
}
