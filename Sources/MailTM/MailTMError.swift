import HTTP1
import JSON
import ServerKit

/// Every error mail.tm's API answers with, in the shapes its server (API Platform, with LexikJWT for tokens) gives
/// them: a Hydra error for a bad request, a missing resource, a wrong method or too many requests; a constraint
/// violation list for a refused address or password (422); `{"code":401,"message":…}` for a token or a sign-in.
/// Texts are fixed sentences: nothing of the request or of the server is echoed.
public enum MailTMError: Error, Sendable, Equatable {
    /// 400: a body that is not a JSON object, a field of the wrong type, a merge patch naming a field that cannot be
    /// patched, a `page` that is not a whole number from 1 to the bound. The text is the Hydra description.
    case badRequest(String)
    /// 401 `JWT Token not found`: no bearer.
    case tokenNotFound
    /// 401 `Invalid JWT Token`: a bearer that is not a live mailbox token.
    case invalidToken
    /// 401 `Invalid credentials.`: `POST /token` with an address and password that open nothing.
    case invalidCredentials
    /// 403 `Access Denied.`: a Mercure topic that is not the bearer's own account.
    case forbidden
    /// 404 `Not Found`: no such resource for this account (another account's included).
    case notFound
    /// 405: the path exists but not with this method.
    case methodNotAllowed
    /// 415: a body that is not JSON.
    case unsupportedMediaType
    /// 422: a property's value refused; the violation's property path and message.
    case violation(property: String, message: String)
    /// 429: over the client's rate.
    case tooManyRequests
    /// 500 or 503 for what the surface did not foresee (``ServiceFailure``).
    case failure(ServiceFailure)

    /// The status of the answer.
    public var status: HTTPStatus {
        switch self {
        case .badRequest: .badRequest
        case .tokenNotFound, .invalidToken, .invalidCredentials: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .unsupportedMediaType: .unsupportedMediaType
        case .violation: .unprocessableEntity
        case .tooManyRequests: .tooManyRequests
        case .failure(let failure): failure.status
        }
    }

    /// The answer: status, body and content type (`application/ld+json` for Hydra's shapes, `application/json` for
    /// the token errors), `Cache-Control: no-store`.
    public var response: HTTPResponse {
        let body: JSONValue
        var contentType = MailTMJSON.contentType
        switch self {
        case .tokenNotFound, .invalidToken, .invalidCredentials:
            let message =
                switch self {
                case .tokenNotFound: "JWT Token not found"
                case .invalidToken: "Invalid JWT Token"
                default: "Invalid credentials."
                }
            body = .object([("code", .int(401)), ("message", .string(message))])
            contentType = "application/json"
        case .violation(let property, let message):
            body = .object([
                ("@context", .string("/contexts/ConstraintViolationList")), ("@type", .string("ConstraintViolationList")),
                ("hydra:title", .string("An error occurred")), ("hydra:description", .string("\(property): \(message)")),
                ("violations", .array([.object([("propertyPath", .string(property)), ("message", .string(message))])])),
            ])
        default:
            body = .object([
                ("@context", .string("/contexts/Error")), ("@type", .string("hydra:Error")),
                ("hydra:title", .string("An error occurred")), ("hydra:description", .string(description)),
            ])
        }
        var response = HTTPResponse.noStoreJSON(status, body)
        response.headers.replaceOrAdd("Content-Type", contentType)
        return response
    }

    /// The Hydra description of the errors that have one.
    var description: String {
        switch self {
        case .badRequest(let text): text
        case .forbidden: "Access Denied."
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .unsupportedMediaType: "The content-type is not supported. Supported MIME types are \"application/json\", \"application/ld+json\" and \"application/merge-patch+json\"."
        case .tooManyRequests: "Too Many Requests: at most 8 requests a second."
        case .failure(.unavailable): "Service Unavailable"
        default: "Internal Server Error"
        }
    }

    /// The error a thrown `error` is answered with, and whether it is one to report (an unforeseen one).
    static func answer(for error: any Error) -> (MailTMError, report: Bool) {
        if let error = error as? MailTMError { return (error, false) }
        let failure = ServiceFailure(error)
        return (.failure(failure), failure.shouldLog)
    }
}
