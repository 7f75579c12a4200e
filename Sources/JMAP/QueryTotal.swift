import JSON

/// Whether a `/query` or `/queryChanges` answers `total` (RFC 8620 §5.5 and §5.6): only when the request's
/// `calculateTotal` is true, since counting every match may cost more than the page asked for; absent, or false, the
/// answer has no `total` at all. The one rule of every query method (`Mailbox/query`, `Email/query`,
/// `Email/queryChanges`, `EmailSubmission/query`).
struct QueryTotal {
    /// Whether the request asked for the total: the store counts only then.
    let requested: Bool

    /// The request's `calculateTotal` (false when absent or null).
    /// - Throws: `invalidArguments` when it is not a boolean.
    init(_ arguments: JMAPArguments) throws(MethodError) {
        requested = try arguments.bool("calculateTotal", default: false)
    }

    /// The answer's `total` member for `count` matches when it was asked for (and counted); none otherwise.
    func member(_ count: @autoclosure () -> Int?) -> [(String, JSONValue)] {
        guard requested, let count = count() else { return [] }
        return [("total", .int(Int64(count)))]
    }
}
