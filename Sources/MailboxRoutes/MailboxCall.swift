import MailboxAccounts
import HTTP1
import ServerKit

/// One request as a handler of the surface sees it (the surface's own routes, the webhook and sandbox routes).
public struct MailboxCall: Sendable {
    /// The request.
    public let request: HTTPRequest
    /// Its context: request id, client address and key.
    public let context: RequestContext
    /// The route's parameters.
    public let parameters: RouteParameters
    package let bearer: MailboxBearer
    /// Unix seconds when the call was admitted.
    public let now: Int64

    /// The `{id}` route parameter (empty when absent).
    public var id: String { parameters["id"] ?? "" }
    /// The `{messageID}` route parameter (empty when absent).
    public var messageID: String { parameters["messageID"] ?? "" }

    /// The integer query parameter `name`: `fallback` when absent; present but empty, not a number or outside
    /// `range` is a 400 (the document declares these parameters as integers).
    public func integerQuery(_ name: String, in range: ClosedRange<Int>, fallback: Int) throws(MailboxError) -> Int {
        guard let text = request.queryItem(name) else { return fallback }
        guard let number = Int(text), range.contains(number) else { throw MailboxError.invalidRequest }
        return number
    }
}

/// Which buckets a route draws from.
public enum MailboxRatePolicy: Sendable {
    /// Public, free authenticated or Pro, by the bearer.
    case general
    /// Free or Pro account creation, by the bearer.
    case accountCreation
}
