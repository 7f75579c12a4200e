import ClientAddress
import Directory
import HTTP1
import JSON
import ServerKit

extension JMAPService {
    /// `POST /jmap/api`: the request object (RFC 8620 section 3.3), its method calls in order, each with the
    /// result references and creation ids of those before it.
    func api(_ request: HTTPRequest, _ account: JMAPAccount, client: ClientAddressKey) async throws -> HTTPResponse {
        let envelope: JSONValue
        do {
            let limits = JSONValue.Limits.requestBody(maximumBytes: configuration.maxSizeRequest)
            envelope = try JSONValue.parse(request.body, limits: limits)
        } catch {
            throw RequestError.notJSON
        }
        return .noStoreJSON(.ok, try await run(envelope, account, client: client, requestID: request.requestID))
    }

    /// A request object already parsed, run for `principal` as `POST /jmap/api` runs it: for surfaces composed over
    /// JMAP (the MCP tools) that must read and send exactly as JMAP does.
    /// - Parameters:
    ///   - envelope: the request object (`using`, `methodCalls`, optional `createdIds`).
    ///   - principal: who the calls act as (its authenticator already checked it).
    ///   - client: the client's rate-limit key.
    ///   - requestID: the request id unexpected errors are logged with.
    /// - Returns: the response object (`methodResponses`, `sessionState`, `createdIds` when given).
    /// - Throws: ``JMAPService/Refusal`` for a request-level error (not a request, unknown capability, a limit);
    ///   storage errors.
    public func run(_ envelope: JSONValue, as principal: Principal, client: ClientAddressKey, requestID: String)
        async throws -> JSONValue
    {
        do {
            return try await run(envelope, JMAPAccount(principal), client: client, requestID: requestID)
        } catch let error as RequestError {
            throw Refusal(type: error.type, detail: error.detail)
        }
    }

    /// A request-level error of ``run(_:as:client:requestID:)``: its RFC 8620 type and a sentence for the caller.
    public struct Refusal: Error, Sendable {
        /// The `urn:ietf:params:jmap:error:` type.
        public let type: String
        /// What was wrong, for the caller.
        public let detail: String
    }

    func run(_ envelope: JSONValue, _ account: JMAPAccount, client: ClientAddressKey, requestID: String)
        async throws -> JSONValue
    {
        try await execute(envelope, account, client: client, requestID: requestID).response
    }

    /// Runs a request object for `principal` (``run(_:as:client:requestID:)``), also giving back what the request
    /// carried from call to call: the typed refusals of its submissions, for an in-process sender.
    /// - Throws: ``JMAPService/Refusal`` for a request-level error; storage errors.
    func execute(_ envelope: JSONValue, as principal: Principal, client: ClientAddressKey, requestID: String)
        async throws -> (response: JSONValue, call: JMAPCall)
    {
        do {
            return try await execute(envelope, JMAPAccount(principal), client: client, requestID: requestID)
        } catch let error as RequestError {
            throw Refusal(type: error.type, detail: error.detail)
        }
    }

    /// The request object's calls in order, and the response object (``run(_:_:client:requestID:)``), with the call
    /// state they shared.
    private func execute(_ envelope: JSONValue, _ account: JMAPAccount, client: ClientAddressKey, requestID: String)
        async throws -> (response: JSONValue, call: JMAPCall)
    {
        guard envelope.objectValue != nil, let usingList = envelope["using"]?.arrayValue,
            let calls = envelope["methodCalls"]?.arrayValue
        else { throw RequestError.notRequest("The body must be an object with `using` and `methodCalls` arrays.") }
        var using: Set<String> = []
        for item in usingList {
            guard let name = item.stringValue else { throw RequestError.notRequest("`using` must list strings.") }
            guard Capability.all.contains(name) else { throw RequestError.unknownCapability(name) }
            using.insert(name)
        }
        guard calls.count <= configuration.maxCallsInRequest else {
            throw RequestError.limit(
                "maxCallsInRequest", "At most \(configuration.maxCallsInRequest) method calls in one request.")
        }
        var created: [String: String] = [:]
        if let given = envelope["createdIds"] {
            guard let pairs = given.objectValue, pairs.allSatisfy({ $0.1.stringValue != nil }) else {
                throw RequestError.notRequest("`createdIds` must map creation ids to ids.")
            }
            for (key, value) in pairs { created[key] = value.stringValue }
        }
        var invocations: [(String, [(String, JSONValue)], String)] = []
        for call in calls {
            guard let parts = call.arrayValue, parts.count == 3, let name = parts[0].stringValue,
                let arguments = parts[1].objectValue, let callID = parts[2].stringValue
            else { throw RequestError.notRequest("Each method call is [name, arguments object, call id].") }
            invocations.append((name, arguments, callID))
        }

        try Self.checkScopes(invocations, account)
        let call = JMAPCall(account: account, client: client, using: using, createdIDs: created, limits: configuration)
        for (name, arguments, callID) in invocations {
            do {
                let resolved = try call.responses.resolve(arguments)
                call.startMethod()
                let answers = try await perform(name, JMAPArguments(pairs: resolved), call)
                try call.responses.keep(answers, callID: callID)
            } catch let error as MethodError {
                call.responses.keep(error, callID: callID)
            } catch let error as RequestError {
                throw error
            } catch {
                let failure = ServiceFailure(error)
                if failure.shouldLog { onUnexpectedError(error, requestID) }
                call.responses.keep(failure == .unavailable ? .serverUnavailable : .serverFail, callID: callID)
            }
        }
        var body: [(String, JSONValue)] = [
            ("methodResponses", call.responses.json),
            ("sessionState", .string(String(try await store.state(address: account.address)))),
        ]
        if envelope["createdIds"] != nil {
            body.append(("createdIds", .object(call.createdIDs.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        return (.object(body), call)
    }

    /// The account's state as JMAP's `state` strings carry it.
    func state(_ call: JMAPCall) async throws -> JSONValue {
        .string(String(try await store.state(address: call.account.address)))
    }

    /// The `ids` argument of a `/get`: nil for all, each creation-id reference resolved, at most
    /// `maxObjectsInGet`.
    func getIDs(_ arguments: JMAPArguments, _ call: JMAPCall) throws(MethodError) -> [String]? {
        guard let ids = try arguments.strings("ids") else { return nil }
        guard ids.count <= configuration.maxObjectsInGet else {
            throw MethodError("requestTooLarge", "At most \(configuration.maxObjectsInGet) ids in one /get.")
        }
        return ids.map { call.id($0) ?? $0 }
    }

    /// The `properties` argument checked against `known`; `fallback` when absent.
    func properties(_ arguments: JMAPArguments, known: Set<String>, fallback: [String]) throws(MethodError) -> [String] {
        guard let wanted = try arguments.strings("properties") else { return fallback }
        if let unknown = wanted.first(where: { !known.contains($0) }) {
            throw .invalidArguments("Unknown or unsupported property `\(unknown)`.")
        }
        return wanted.contains("id") ? wanted : ["id"] + wanted
    }
}
