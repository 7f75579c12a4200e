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

    /// The states a /set answers with, `before` having been read before its writes: `newState` is the state now;
    /// `oldState` is `before` only when every change logged since then is to one of `touched`, the call's own
    /// objects. When another change came in between (another request, a delivery), `oldState` is null, which RFC 8620
    /// section 5.3 allows, so that a client does not move its cache from `oldState` to `newState` past a change it
    /// never saw: it asks `/changes` instead. The log and the state are read in one transaction.
    func statesAfterSet(before: JSONValue, touched: Set<String>, _ call: JMAPCall) async throws -> SetStates {
        guard let since = before.stringValue.flatMap(Int64.init),
            let (log, now) = try await store.changes(address: call.account.address, since: since)
        else { return SetStates(old: .null, new: try await state(call)) }
        let ownOnly = log.allSatisfy { touched.contains($0.messageID) }
        return SetStates(old: ownOnly ? before : .null, new: .string(String(now)))
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
