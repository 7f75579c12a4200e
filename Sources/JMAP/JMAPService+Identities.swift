import JSON

extension JMAPService {
    /// `Identity/get`: one identity, the account's own address; its id is the account id.
    func identityGet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let ids = try getIDs(arguments, call)
        let identity: JSONValue = .object([
            ("id", .string(call.account.id)), ("name", .string(call.account.name)),
            ("email", .string(call.account.address)), ("replyTo", .null), ("bcc", .null), ("textSignature", ""),
            ("htmlSignature", ""), ("mayDelete", false),
        ])
        let found = ids?.contains(call.account.id) ?? true
        return .object([
            ("accountId", .string(call.account.id)), ("state", "0"), ("list", .array(found ? [identity] : [])),
            ("notFound", .array((ids ?? []).filter { $0 != call.account.id }.map(JSONValue.string))),
        ])
    }
}
