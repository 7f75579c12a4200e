import JSON

extension JMAPService {
    /// The account's state before a `/set` that takes `ifInState`: `stateMismatch` when the client expected
    /// another.
    func stateBeforeSet(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let state = try await state(call)
        if let expected = try arguments.string("ifInState"), .string(expected) != state {
            throw MethodError("stateMismatch", "The account's state is no longer \(expected).")
        }
        return state
    }

    /// `requestTooLarge` when a `/set` names more than `maxObjectsInSet` objects.
    func checkSetSize(_ count: Int) throws(MethodError) {
        guard count <= configuration.maxObjectsInSet else {
            throw MethodError("requestTooLarge", "At most \(configuration.maxObjectsInSet) objects in one /set.")
        }
    }

    /// Applies the Email patch `value` to message `id`, recorded under `id` when applied and under `key` (as the
    /// client named it) when not.
    func applyEmailUpdate(key: String, id: String, _ value: JSONValue, into response: inout SetResponse, _ call: JMAPCall)
        async throws
    {
        guard let patch = value.objectValue else {
            response.notUpdated.append((key, SetError.invalidProperties("A patch must be an object.", []).json))
            return
        }
        if let error = try await updateEmail(id, patch, call) {
            response.notUpdated.append((key, error.json))
        } else {
            response.updated.append((id, .null))
        }
    }
}
