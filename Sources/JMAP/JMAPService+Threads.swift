import JSON

extension JMAPService {
    /// `Thread/get`: each thread's messages, oldest first.
    func threadGet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        // Read before the data: a change in between is then reported again by /changes, never lost.
        let stateBefore = try await state(call)
        guard let ids = try getIDs(arguments, call) else {
            throw MethodError("requestTooLarge", "Thread/get needs `ids`: this server does not list every thread.")
        }
        var list: [JSONValue] = []
        var notFound: [JSONValue] = []
        for id in ids {
            let emails = try await store.thread(address: call.account.address, id: id)
            if emails.isEmpty {
                notFound.append(.string(id))
            } else {
                list.append(.object([("id", .string(id)), ("emailIds", .array(emails.map(JSONValue.string)))]))
            }
        }
        return .object([
            ("accountId", .string(call.account.id)), ("state", stateBefore), ("list", .array(list)),
            ("notFound", .array(notFound)),
        ])
    }
}
