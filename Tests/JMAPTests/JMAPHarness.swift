import Directory
import Foundation
import HTTP1
import JMAP
import Logging
import MailDelivery
import MailStore
import PosternTestSupport
import ServerKit
import Storage
import Synchronization
import Testing

/// An agent of ``JMAPHarness``: an account on the agent domain and the bearer that opens it.
struct JMAPAgent: Sendable {
    let username: String
    /// The agent's inbox address.
    let address: String
    /// The bearer the authenticator answers with this agent's principal.
    let capability: String
    /// The JMAP account id.
    let accountID: String
}

/// One entry of `methodResponses`.
struct JMAPInvocation: @unchecked Sendable {
    let name: String
    let arguments: [String: Any]
    let callID: String
}

/// A response as a client reads it.
struct TestResponse: Sendable {
    let status: Int
    let headers: [(String, String)]
    let body: [UInt8]

    /// The first value of the header `name` (any case).
    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], "not an object: \(text)")
    }
}

/// Accounts added as agents sign up, on one agent domain: what the server's directory answers for its agents.
final class AgentDirectory: AccountDirectory, PrincipalAuthenticator {
    let domain: String
    private let principals = Mutex<[String: Principal]>([:])

    init(domain: String) { self.domain = domain }

    /// Adds `principal`, opened by `bearer`.
    func add(_ principal: Principal, bearer: String) {
        principals.withLock { $0[bearer] = principal }
    }

    func serves(domain: String) -> Bool { domain.lowercased() == self.domain }

    func resolve(_ address: String) async throws -> AddressResolution {
        guard let parts = AddressParts(address), serves(domain: parts.domain) else { return .foreign }
        let mailbox = principals.withLock { $0.values.first { $0.mailbox.address == parts.text }?.mailbox }
        return mailbox.map { .local($0) } ?? .unknown
    }

    func principal(for credentials: Credentials) async throws -> Principal? {
        principals.withLock { $0[credentials.bearerToken] }
    }
}

/// A ``JMAPService`` on a fresh database (`StorageBackend.current`), with its store, an agent directory and local
/// delivery given to it, driven through its routes with the same calls a client of the whole server makes: agents
/// sign up (an account on the agent domain and a bearer), then speak JMAP. For the flows of the mail methods; the
/// end-to-end suites in PosternAppTests keep what needs the whole server (tokens, processes).
/// One test uses one harness at a time, hence `@unchecked Sendable`.
struct JMAPHarness: @unchecked Sendable {
    static let core = "urn:ietf:params:jmap:core"
    static let mail = "urn:ietf:params:jmap:mail"
    static let submission = "urn:ietf:params:jmap:submission"
    static let blob = "urn:ietf:params:jmap:blob"
    static let allCapabilities = [core, mail, submission, blob]
    /// An agent inbox's quota when none is given: the server's default (40 MiB).
    static let defaultInboxQuota: Int64 = 41_943_040

    let client: Client
    /// The service's public base URL (no trailing slash).
    let baseURL = "http://jmap.test"
    /// The agent inbox domain.
    let agentDomain = "agents.test"
    let test: TestDatabase
    let directory: AgentDirectory
    private let inboxQuota: Int64

    /// The database under the store.
    var database: any SQLDatabase { test.database }

    /// Requests through the routes, as the server would hand them over.
    struct Client: @unchecked Sendable {
        let router: ContextRouter

        func request(
            _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
        ) async throws -> TestResponse {
            var fields = HTTPHeaders()
            for (name, value) in headers { fields.add(name, value) }
            let request = HTTPRequest(
                method: HTTPMethod(rawValue: method), target: path, version: .http1_1, headers: fields,
                body: body, remoteAddress: "192.0.2.7", requestID: "jmap-flow")
            let response = await router.respond(to: request)
            return TestResponse(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                body: response.body)
        }
    }

    /// A service with rate limits as given (off by default, as the end-to-end harness had them) and agents'
    /// inboxes of `inboxQuota` bytes.
    static func start(rateLimits: Bool = false, inboxQuota: Int64? = nil) async throws -> JMAPHarness {
        try JMAPHarness(rateLimits: rateLimits, inboxQuota: inboxQuota ?? defaultInboxQuota)
    }

    private init(rateLimits: Bool, inboxQuota: Int64) throws {
        test = try StorageBackend.current.makeDatabase(logger: Logger(label: "jmap-flow-tests"))
        let store = MailStore(database: test.database)
        directory = AgentDirectory(domain: agentDomain)
        self.inboxQuota = inboxQuota
        let clock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        let delivery = LocalDelivery(directory: directory, store: store, clock: clock)
        var configuration = JMAPConfiguration(baseURL: baseURL)
        configuration.rateLimitsEnabled = rateLimits
        let service = JMAPService(
            configuration: configuration, authenticator: directory, store: store, directory: directory,
            delivery: delivery, clock: clock)
        var router = ContextRouter()
        service.register(into: &router)
        client = Client(router: router)
    }

    func stop() async {}

    // MARK: signing up

    /// Adds the agent `username` (its inbox on the agent domain) and the bearer that opens its account.
    func signUp(_ username: String) async throws -> JMAPAgent {
        let address = "\(username)@\(agentDomain)"
        let agent = JMAPAgent(
            username: username, address: address, capability: "capability-\(username)-\(UUID())",
            accountID: "acct-\(username)")
        directory.add(
            Principal(accountID: agent.accountID, mailbox: Recipient(address: address, quota: inboxQuota)),
            bearer: agent.capability)
        return agent
    }

    // MARK: HTTP

    /// `GET /.well-known/jmap` with `Authorization: Bearer <token>` (no header when `token` is nil).
    func session(token: String?) async throws -> TestResponse {
        try await client.request("GET", "/.well-known/jmap", headers: Self.authorization(token))
    }

    /// `POST /jmap/api` with a raw body.
    func post(body: [UInt8], token: String?) async throws -> TestResponse {
        let headers = Self.authorization(token) + [("Content-Type", "application/json")]
        return try await client.request("POST", "/jmap/api", headers: headers, body: body)
    }

    /// `POST /jmap/api` with a request object.
    func post(_ object: Any, token: String?) async throws -> TestResponse {
        try await post(body: [UInt8](try JSONSerialization.data(withJSONObject: object)), token: token)
    }

    /// Runs `calls` (each `[name, arguments, callId]`) as `agent`; expects 200 and returns `methodResponses`.
    func call(_ agent: JMAPAgent, _ calls: [[Any]], using: [String] = JMAPHarness.allCapabilities) async throws
        -> [JMAPInvocation]
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
    func single(_ agent: JMAPAgent, _ name: String, _ arguments: [String: Any], using: [String] = allCapabilities)
        async throws -> JMAPInvocation
    {
        let responses = try await call(agent, [[name, arguments, "c0"]], using: using)
        try #require(responses.count == 1, "\(responses.map(\.name))")
        return responses[0]
    }

    /// The `type` of a method-level error response, nil when the response is no error.
    static func errorType(_ invocation: JMAPInvocation) -> String? {
        invocation.name == "error" ? invocation.arguments["type"] as? String : nil
    }

    private static func authorization(_ token: String?) -> [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    // MARK: mail

    /// Writes a message from `from` to `to` in `from`'s Sent mailbox and submits it in the same request:
    /// `[Email/set, EmailSubmission/set]` (and the implicit `Email/set` when `onSuccessUpdate` is given).
    func send(
        from: JMAPAgent, to recipients: [String], subject: String, text: String, fromAddress: String? = nil,
        extraEmail: [String: Any] = [:], onSuccessUpdate: [String: Any]? = nil, before: [[Any]] = []
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
    func ids(_ agent: JMAPAgent, in mailbox: String) async throws -> [String] {
        let query = try await single(
            agent, "Email/query",
            ["accountId": agent.accountID, "filter": ["inMailbox": mailbox],
             "sort": [["property": "receivedAt", "isAscending": false]]])
        return try #require(query.arguments["ids"] as? [String], "\(query.arguments)")
    }

    /// `Email/get` of `ids` with `properties`; the list, in the order of the response.
    func emails(_ agent: JMAPAgent, _ ids: [String], properties: [String]) async throws -> [[String: Any]] {
        let get = try await single(
            agent, "Email/get",
            ["accountId": agent.accountID, "ids": ids, "properties": properties, "fetchTextBodyValues": true])
        return try #require(get.arguments["list"] as? [[String: Any]], "\(get.arguments)")
    }
}

extension JMAPInvocation {
    /// `arguments[key]` as an object.
    func object(_ key: String) -> [String: Any]? { arguments[key] as? [String: Any] }
}
