import HTTP1
import JSON
import ServerKit

/// A refusal in Mailosaur's shape: a status its SDKs map to their errors (400 `invalid_request` with each invalid
/// field, 401 `authentication_error`, 404 `Not found, check input parameters.`) and a JSON body
/// `{"type","errors":[{"field","detail":[{"description"}]}]}`, the form their 400 handler reads.
struct MailosaurRefusal: Error, Sendable, Equatable {
    let status: HTTPStatus
    /// `type`: Mailosaur's error type.
    let type: String
    /// Each invalid field with what is wrong with it.
    let errors: [(field: String, description: String)]

    /// 400 naming `field`.
    static func invalid(_ field: String, _ description: String) -> MailosaurRefusal {
        MailosaurRefusal(status: .badRequest, type: "invalid_request", errors: [(field, description)])
    }

    /// 404: no such server, message or attachment in what the credential sees.
    static let notFound = MailosaurRefusal(status: .notFound, type: "invalid_request", errors: [])

    /// 401: no credential, or one that is neither the operator's token nor a Pro user's API token.
    static let unauthorized = MailosaurRefusal(status: .unauthorized, type: "authentication_error", errors: [])

    /// A failure of the server's (`api_error`) with `status`: 503 for storage, 500 for anything unforeseen, 429.
    static func failed(_ status: HTTPStatus) -> MailosaurRefusal {
        MailosaurRefusal(status: status, type: "api_error", errors: [])
    }

    /// The answer to an error a route threw, and whether to report it: a refusal as it is, anything else as its
    /// ``ServiceFailure`` (a bare 503 or 500, nothing of the error told).
    static func answer(to error: any Error) -> (response: HTTPResponse, report: Bool) {
        if let refusal = error as? MailosaurRefusal { return (refusal.response, false) }
        let failure = ServiceFailure(error)
        return (failed(failure.status).response, failure.shouldLog)
    }

    /// The body.
    var json: JSONValue {
        .object([
            ("type", .string(type)),
            (
                "errors",
                .array(
                    errors.map { error in
                        .object([
                            ("field", .string(error.field)),
                            ("detail", .array([.object([("description", .string(error.description))])])),
                        ])
                    })
            ),
        ])
    }

    /// The answer: the body, and for 401 the challenge of Basic authentication.
    var response: HTTPResponse {
        var response = HTTPResponse.noStoreJSON(status, json)
        if status == .unauthorized { response.headers.replaceOrAdd("WWW-Authenticate", #"Basic realm="Mailosaur""#) }
        return response
    }

    static func == (a: MailosaurRefusal, b: MailosaurRefusal) -> Bool {
        a.status == b.status && a.type == b.type && a.errors.map(\.field) == b.errors.map(\.field)
            && a.errors.map(\.description) == b.errors.map(\.description)
    }
}
