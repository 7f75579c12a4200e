import HTTP1
import ServerKit

/// One request as a handler of the surface sees it.
struct MailboxCall: Sendable {
    let request: HTTPRequest
    let context: RequestContext
    let parameters: RouteParameters
    let bearer: MailboxBearer
    let now: Int64

    /// The `{id}` route parameter (empty when absent).
    var id: String { parameters["id"] ?? "" }
}

/// Which buckets a route draws from.
enum MailboxRatePolicy: Sendable {
    /// Public, free authenticated or Pro, by the bearer.
    case general
    /// Free or Pro account creation, by the bearer.
    case accountCreation
}
