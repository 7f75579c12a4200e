import JSON

/// The method responses of one API request so far (RFC 8620 section 3.4), held to a byte budget: what result
/// references resolve to is measured before a method reads it, and an answer is kept only when it fits in what is
/// left, so that no request makes the server hold or encode more than `maxSizeResponse` (one 4 KB request whose
/// references doubled the previous answer at every call used to allocate gigabytes). Pure: the fuzz target runs it.
struct JMAPResponses: Sendable {
    typealias Response = (name: String, arguments: JSONValue, callID: String)

    private(set) var list: [Response] = []
    /// Bytes the kept answers may still add.
    private(set) var bytesLeft: Int

    init(budget: Int) {
        bytesLeft = budget
    }

    /// `arguments` with their result references resolved against the answers so far, when what they resolve to
    /// fits in the budget; `invalidResultReference` or `requestTooLarge` otherwise.
    func resolve(_ arguments: [(String, JSONValue)]) throws(MethodError) -> [(String, JSONValue)] {
        let resolved = try ResultReferences.resolve(arguments, responses: list)
        _ = try measure(.object(resolved))
        return resolved
    }

    /// Keeps the answers of call `callID` when all of them fit in the budget; `requestTooLarge` and nothing kept
    /// otherwise.
    mutating func keep(_ answers: [(String, JSONValue)], callID: String) throws(MethodError) {
        var total = 0
        for (_, answer) in answers {
            guard let count = answer.serializedCount(notExceeding: bytesLeft - total) else {
                throw MethodError.responseTooLarge
            }
            total += count
        }
        bytesLeft -= total
        for (name, answer) in answers { list.append((name, answer, callID)) }
    }

    /// Keeps `error` as the answer of call `callID` (a few dozen bytes, outside the budget).
    mutating func keep(_ error: MethodError, callID: String) {
        list.append(("error", error.json, callID))
    }

    /// The serialized size of `value` when it fits in what is left; `requestTooLarge` when not, found without
    /// walking past the budget.
    func measure(_ value: JSONValue, alreadyTaken: Int = 0) throws(MethodError) -> Int {
        guard let count = value.serializedCount(notExceeding: bytesLeft - alreadyTaken) else {
            throw MethodError.responseTooLarge
        }
        return count
    }

    /// The `methodResponses` array.
    var json: JSONValue {
        .array(list.map { .array([.string($0.name), $0.arguments, .string($0.callID)]) })
    }
}
