import Directory
import HTTP1
import JMAP
import JSON
import Logging
import MCPServer
import MailDelivery
import MailStore
import PosternTestSupport
import ServerKit
import Storage
import Synchronization
import Testing

/// Accounts on one domain, as a surface's directory would answer for them.
struct FakeDirectory: AccountDirectory {
    let accounts: Set<String>

    func serves(domain: String) -> Bool { domain.lowercased() == "agents.test" }

    func resolve(_ address: String) async throws -> AddressResolution {
        guard let parts = AddressParts(address), serves(domain: parts.domain) else { return .foreign }
        return accounts.contains(parts.text) ? .local(Recipient(address: parts.text, quota: 1_000_000)) : .unknown
    }
}

/// Keys that name principals directly: what an API key comes to once its authenticator checked it.
struct FakeKeys: PrincipalAuthenticator {
    let principals: [String: Principal]

    func principal(for credentials: Credentials) async throws -> Principal? { principals[credentials.bearerToken] }
}

/// An MCPService over a JMAPService over a fresh database of the given backend, driven through its routes.
struct MCPServiceHarness {
    static let ada = Principal(accountID: "acct-ada", mailbox: Recipient(address: "ada@agents.test", quota: 1_000_000))
    static let bob = Principal(accountID: "acct-bob", mailbox: Recipient(address: "bob@agents.test", quota: 1_000_000))

    let test: TestDatabase
    let store: MailStore
    let router: ContextRouter

    init(_ backend: StorageBackend, configure: (inout MCPConfiguration) -> Void = { _ in }) throws {
        test = try backend.makeDatabase(logger: Logger(label: "mcp-tests"))
        store = MailStore(database: test.database)
        let directory = FakeDirectory(accounts: [Self.ada.mailbox.address, Self.bob.mailbox.address])
        let delivery = LocalDelivery(directory: directory, store: store, clock: { 1_700_000_000 })
        var jmapConfiguration = JMAPConfiguration(baseURL: "http://mcp.test/")
        jmapConfiguration.rateLimitsEnabled = false
        let keys = FakeKeys(principals: ["ada-key": Self.ada, "bob-key": Self.bob])
        let jmap = JMAPService(
            configuration: jmapConfiguration, authenticator: keys, store: store, directory: directory,
            delivery: delivery, clock: { 1_700_000_000 }, outbound: .deliveryOff(test.database, changes: store.changes))
        var configuration = MCPConfiguration(baseURL: "http://mcp.test")
        configuration.rateLimitsEnabled = false
        configure(&configuration)
        let service = MCPService(
            configuration: configuration, authenticator: keys, jmap: jmap, mail: store,
            clock: { 1_700_000_000 }, sessionSecret: Array(repeating: 7, count: 32),
            monotonicClock: TestClock().monotonic)
        var router = ContextRouter()
        service.register(into: &router)
        self.router = router
    }

    /// Delivers the message `raw` from `sender` to Bob's inbox, as SMTP's local delivery would; whether it was stored.
    func deliverToBob(_ raw: String, from sender: String) async throws -> Bool {
        let delivery = LocalDelivery(
            directory: FakeDirectory(accounts: [Self.bob.mailbox.address]), store: store, clock: { 1_700_000_000 })
        let message = try delivery.message(Array(raw.utf8), envelopeFrom: sender)
        let bob = MailStore.Recipient(address: Self.bob.mailbox.address, quota: Self.bob.mailbox.quota)
        return try await store.deliver(message, to: [bob], folder: .inbox, now: 1_700_000_000).count == 1
    }

    /// Sends a request through the routes, as the server would.
    func send(_ method: HTTPMethod, _ path: String = "/mcp", headers: [(String, String)], body: String = "") async
        -> HTTPResponse
    {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        let request = HTTPRequest(
            method: method, target: path, version: .http1_1, headers: fields, body: Array(body.utf8),
            remoteAddress: "192.0.2.7", requestID: "mcp-test")
        return await router.respond(to: request)
    }

    /// Initializes with `key`; the session id.
    func initialize(_ key: String = "ada-key", version: String = "2025-06-18") async throws -> String {
        let response = await send(
            .POST, headers: [("Authorization", "Bearer " + key)],
            body: #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"\#(version)","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
        #expect(response.status.code == 200)
        return try #require(response.headers["Mcp-Session-Id"])
    }

    /// A JSON-RPC request in session `session`; the response object.
    func rpc(_ method: String, _ params: String, key: String = "ada-key", session: String) async throws -> JSONValue {
        let response = await send(
            .POST, headers: [("Authorization", "Bearer " + key), ("Mcp-Session-Id", session)],
            body: #"{"jsonrpc":"2.0","id":7,"method":"\#(method)","params":\#(params)}"#)
        return try JSONValue.parse(response.body)
    }

    /// `tools/call` of `name`; the result object.
    func tool(_ name: String, _ arguments: String, key: String = "ada-key", session: String) async throws -> JSONValue {
        let answer = try await rpc(
            "tools/call", #"{"name":"\#(name)","arguments":\#(arguments)}"#, key: key, session: session)
        return try #require(answer["result"], "\(answer)")
    }

    /// The text of a tool result, parsed as JSON.
    static func json(_ result: JSONValue) throws -> JSONValue {
        let text = try #require(result["content"]?.arrayValue?.first?["text"]?.stringValue)
        return try JSONValue.parse(Array(text.utf8), limits: .init(maximumBytes: 1 << 22, maximumDepth: 32))
    }

    /// The text inside an untrusted-content delimiter when `value` is a string that is wholly one delimited text
    /// (the one-line field form or the body form) whose tag occurs exactly twice, at its opening and its closing, so
    /// that nothing inside could have closed it; nil otherwise.
    static func untrusted(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue else { return nil }
        let opening = "<<<UNTRUSTED EMAIL CONTENT "
        guard text.hasPrefix(opening) else { return nil }
        let tag = String(text.dropFirst(opening.count).prefix(16))
        guard tag.count == 16, tag.allSatisfy(\.isHexDigit), text.components(separatedBy: tag).count == 3 else {
            return nil
        }
        let closing = "<<<END UNTRUSTED EMAIL CONTENT \(tag)>>>"
        guard text.hasSuffix(closing), let start = text.range(of: ">>>") else { return nil }
        var inner = text[start.upperBound..<text.index(text.endIndex, offsetBy: -closing.count)]
        if text.dropFirst(opening.count + 16).hasPrefix(":") {
            guard inner.hasPrefix("\n"), inner.hasSuffix("\n") else { return nil }
            inner = inner.dropFirst().dropLast()
        }
        return String(inner)
    }

    /// Expects every string in `value` to be delimited untrusted text (``untrusted(_:)``), but for the members
    /// named in `bare` (what the server computes: ids, dates, URLs).
    static func expectDelimited(
        _ value: JSONValue, bare: Set<String>, _ path: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch value {
        case .string:
            #expect(
                untrusted(value) != nil, "\(path) lies outside the delimiter: \(value)", sourceLocation: sourceLocation)
        case .array(let items):
            for (index, item) in items.enumerated() {
                expectDelimited(item, bare: bare, path + "[\(index)]", sourceLocation: sourceLocation)
            }
        case .object(let members):
            for (name, member) in members where !bare.contains(name) {
                expectDelimited(member, bare: bare, path + "." + name, sourceLocation: sourceLocation)
            }
        default: break
        }
    }
}
