import Foundation
import Testing

/// An account a JMAP test speaks as: its inbox address, the bearer that opens it and its JMAP account id.
public protocol JMAPTestAccount: Sendable {
    var username: String { get }
    /// The inbox address.
    var address: String { get }
    /// The bearer that opens the account.
    var capability: String { get }
    /// The JMAP account id.
    var accountID: String { get }
}

/// One entry of `methodResponses`.
public struct JMAPInvocation: @unchecked Sendable {
    public let name: String
    public let arguments: [String: Any]
    public let callID: String

    public init(name: String, arguments: [String: Any], callID: String) {
        self.name = name
        self.arguments = arguments
        self.callID = callID
    }

    /// `arguments[key]` as an object.
    public func object(_ key: String) -> [String: Any]? { arguments[key] as? [String: Any] }
}

/// The capabilities a JMAP test names in `using`.
public enum JMAPCapabilities {
    public static let core = "urn:ietf:params:jmap:core"
    public static let mail = "urn:ietf:params:jmap:mail"
    public static let submission = "urn:ietf:params:jmap:submission"
    public static let blob = "urn:ietf:params:jmap:blob"
    public static let all = [core, mail, submission, blob]
}

/// The JMAP calls a test makes, the same whether they reach a whole server over a socket (PosternAppTests) or a
/// JMAP service's routes (JMAPTests): a harness gives ``requests`` and has these.
public protocol JMAPTestClient: Sendable {
    associatedtype Requests: TestRequestSending
    /// Where the requests go.
    var requests: Requests { get }
}

extension JMAPTestClient {
    public static var core: String { JMAPCapabilities.core }
    public static var mail: String { JMAPCapabilities.mail }
    public static var submission: String { JMAPCapabilities.submission }
    public static var blob: String { JMAPCapabilities.blob }
    public static var allCapabilities: [String] { JMAPCapabilities.all }

    /// `GET /.well-known/jmap` with `Authorization: Bearer <token>` (no header when `token` is nil).
    public func session(token: String?) async throws -> TestResponse {
        try await requests.request("GET", "/.well-known/jmap", headers: Self.authorization(token), body: [])
    }

    /// `POST /jmap/api` with a raw body.
    public func post(body: [UInt8], token: String?) async throws -> TestResponse {
        try await requests.request(
            "POST", "/jmap/api", headers: Self.authorization(token) + [("Content-Type", "application/json")], body: body)
    }

    /// `POST /jmap/api` with a request object.
    public func post(_ object: Any, token: String?) async throws -> TestResponse {
        try await post(body: [UInt8](try JSONSerialization.data(withJSONObject: object)), token: token)
    }

    /// Runs `calls` (each `[name, arguments, callId]`) as `agent`; expects 200 and returns `methodResponses`.
    public func call(_ agent: some JMAPTestAccount, _ calls: [[Any]], using: [String] = JMAPCapabilities.all)
        async throws -> [JMAPInvocation]
    {
        let response = try await post(["using": using, "methodCalls": calls], token: agent.capability)
        try #require(response.status == 200, "POST /jmap/api answered \(response.status): \(response.text)")
        let body = try response.json()
        #expect(body["sessionState"] is String)
        let list = try #require(body["methodResponses"] as? [[Any]])
        return try list.map { entry in
            try #require(entry.count == 3)
            return JMAPInvocation(
                name: try #require(entry[0] as? String), arguments: try #require(entry[1] as? [String: Any]),
                callID: try #require(entry[2] as? String))
        }
    }

    /// Runs one call and returns its single response.
    public func single(
        _ agent: some JMAPTestAccount, _ name: String, _ arguments: [String: Any],
        using: [String] = JMAPCapabilities.all
    ) async throws -> JMAPInvocation {
        let responses = try await call(agent, [[name, arguments, "c0"]], using: using)
        try #require(responses.count == 1, "\(responses.map(\.name))")
        return responses[0]
    }

    /// The `type` of a method-level error response, nil when the response is no error.
    public static func errorType(_ invocation: JMAPInvocation) -> String? {
        invocation.name == "error" ? invocation.arguments["type"] as? String : nil
    }

    static func authorization(_ token: String?) -> [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    /// Writes a message from `from` to `to` in `from`'s Sent mailbox and submits it in the same request:
    /// `[Email/set, EmailSubmission/set]` (and the implicit `Email/set` when `onSuccessUpdate` is given).
    public func send(
        from: some JMAPTestAccount, to recipients: [String], subject: String, text: String,
        fromAddress: String? = nil, extraEmail: [String: Any] = [:], onSuccessUpdate: [String: Any]? = nil,
        before: [[Any]] = []
    ) async throws -> [JMAPInvocation] {
        var email: [String: Any] = [
            "mailboxIds": ["sent": true],
            "from": [["name": from.username, "email": fromAddress ?? from.address]],
            "to": recipients.map { ["email": $0] },
            "subject": subject,
            "textBody": [["partId": "body", "type": "text/plain"]],
            "bodyValues": ["body": ["value": text]],
            "keywords": ["$draft": true, "$seen": true],
        ]
        email.merge(extraEmail) { _, new in new }
        var submission: [String: Any] = [
            "accountId": from.accountID, "create": ["s1": ["identityId": from.accountID, "emailId": "#d1"]],
        ]
        if let onSuccessUpdate { submission["onSuccessUpdateEmail"] = onSuccessUpdate }
        return try await call(
            from,
            before + [
                ["Email/set", ["accountId": from.accountID, "create": ["d1": email]], "c0"],
                ["EmailSubmission/set", submission, "c1"],
            ])
    }

    /// The ids of `agent`'s messages in `mailbox`, newest first.
    public func ids(_ agent: some JMAPTestAccount, in mailbox: String) async throws -> [String] {
        let query = try await single(
            agent, "Email/query",
            ["accountId": agent.accountID, "filter": ["inMailbox": mailbox],
             "sort": [["property": "receivedAt", "isAscending": false]]])
        return try #require(query.arguments["ids"] as? [String], "\(query.arguments)")
    }

    /// `Email/get` of `ids` with `properties`; the list, in the order of the response.
    public func emails(_ agent: some JMAPTestAccount, _ ids: [String], properties: [String]) async throws
        -> [[String: Any]]
    {
        let get = try await single(
            agent, "Email/get",
            ["accountId": agent.accountID, "ids": ids, "properties": properties, "fetchTextBodyValues": true])
        return try #require(get.arguments["list"] as? [[String: Any]], "\(get.arguments)")
    }
}
