import JSON

/// One method of the API: the capability `using` must name for it, whether its `accountId` must be the request's
/// account, and what it answers (one response, or more: `EmailSubmission/set` may add an implicit `Email/set`).
struct JMAPMethod: Sendable {
    typealias Body = @Sendable (JMAPService, JMAPArguments, JMAPCall) async throws -> [(String, JSONValue)]

    let capability: String
    let onAccount: Bool
    let body: Body

    /// A method answered by `body`'s responses.
    init(_ capability: String, onAccount: Bool = true, _ body: @escaping Body) {
        self.capability = capability
        self.onAccount = onAccount
        self.body = body
    }

    /// A method whose one response, named `name`, is what `body` returns.
    static func single(
        _ name: String, _ capability: String,
        _ body: @escaping @Sendable (JMAPService, JMAPArguments, JMAPCall) async throws -> JSONValue
    ) -> JMAPMethod {
        JMAPMethod(capability) { service, arguments, call in [(name, try await body(service, arguments, call))] }
    }

    /// A `/queryChanges` not calculated here (`Mailbox/queryChanges`: an account has a few folders;
    /// `EmailSubmission/queryChanges`): the client queries again with `query`.
    static func noChangeLog(_ capability: String, _ query: String) -> JMAPMethod {
        let kind = query.prefix { $0 != "/" }
        return JMAPMethod(capability) { _, _, _ in
            throw MethodError(
                "cannotCalculateChanges", "\(kind) query changes are not calculated here: query again with \(query).")
        }
    }
}
