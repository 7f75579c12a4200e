import MailboxAccounts
import MailboxRoutes
import HTTP1
import JSON

/// A query parameter of the operator's routes that cannot be used, named in the answer (issue 68: `since=now` and
/// `limit=0` were a bare `invalid_request`): 400 `{"error":"invalid_request","parameter":"<name>","message":"<what it
/// must be>"}`, the parameter's value never echoed.
struct OperatorParameterError: Error, Sendable, Equatable {
    /// The parameter's name, e.g. `since`.
    let parameter: String
    /// What it must be, in words.
    let message: String

    /// An integer parameter outside `range`.
    static func integer(_ name: String, in range: ClosedRange<Int>) -> OperatorParameterError {
        OperatorParameterError(
            parameter: name, message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
    }

    /// `since` that is neither a stored message's id nor an RFC 3339 time.
    static let since = OperatorParameterError(
        parameter: "since",
        message: "since must be the id of a stored message or an RFC 3339 time such as 2026-05-01T10:00:00Z "
            + "(for \"from now on\", take the newest message's id: GET /api/operator/messages?limit=1)")

    /// The 400 answer.
    var response: HTTPResponse {
        MailboxJSON.response(
            .badRequest,
            [("error", .string("invalid_request")), ("parameter", .string(parameter)), ("message", .string(message))])
    }
}

extension MailboxCall {
    /// The integer query parameter `name`: `fallback` when absent.
    /// - Throws: ``OperatorParameterError`` naming it when it is not a whole number in `range`.
    func operatorInteger(_ name: String, in range: ClosedRange<Int>, fallback: Int) throws(OperatorParameterError)
        -> Int
    {
        guard let text = request.queryItem(name) else { return fallback }
        guard let number = Int(text), range.contains(number) else { throw .integer(name, in: range) }
        return number
    }
}
