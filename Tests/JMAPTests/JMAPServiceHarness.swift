import Directory
import HTTP1
import JMAP
import JSON
import Logging
import MailDelivery
import MailStore
import PosternTestSupport
import ServerKit
import Storage
import Synchronization
import Testing

/// Accounts on fixed domains, as a surface's directory would answer for them.
struct FakeDirectory: AccountDirectory {
    let domains: Set<String>
    let accounts: [String: Int64]

    func serves(domain: String) -> Bool { domains.contains(domain.lowercased()) }

    func resolve(_ address: String) async throws -> AddressResolution {
        guard let parts = AddressParts(address), serves(domain: parts.domain) else { return .foreign }
        return accounts[parts.text].map { .local(Recipient(address: parts.text, quota: $0)) } ?? .unknown
    }
}

struct DirectoryDown: Error {}

/// Bearers that name principals directly: what any kind of bearer comes to once its authenticator checked it.
struct FakeAuthenticator: PrincipalAuthenticator {
    let principals: [String: Principal]
    /// The bearer whose check fails as storage would.
    var failing: String? = nil

    func principal(for credentials: Credentials) async throws -> Principal? {
        if credentials.bearerToken == failing { throw DirectoryDown() }
        return principals[credentials.bearerToken]
    }
}

/// A JMAPService over a fresh database of the given backend, a fake directory and a fake authenticator,
/// driven through its routes without a server.
struct JMAPServiceHarness {
    static let ada = Principal(accountID: "acct-ada", mailbox: Recipient(address: "ada@agents.test", quota: 1_000_000))
    static let bob = Principal(accountID: "acct-bob", mailbox: Recipient(address: "bob@mail.test", quota: 1_000_000))
    /// An account whose address the directory no longer serves (a custom domain its holder no longer holds verified),
    /// as an authenticator that checked an older resolution, or none, would still answer.
    static let gone = Principal(
        accountID: "acct-gone", mailbox: Recipient(address: "support@released.test", quota: 1_000_000))
    static let directory = FakeDirectory(
        domains: ["agents.test", "mail.test"],
        accounts: [ada.mailbox.address: ada.mailbox.quota, bob.mailbox.address: bob.mailbox.quota])

    let test: TestDatabase
    let store: MailStore
    let router: ContextRouter
    let unexpected = RequestIDLog()
    let submissions = SubmissionLog()
    let streamActivity = StreamActivityLog()
    let service: JMAPService
    /// What the service records submissions through.
    let outbound: JMAPOutbound

    /// - Parameter outbound: what submissions record through, given the test's database and the store's change stream
    ///   (which a ledger tells of submissions' moves, as the composition root's does); nil records them with outbound
    ///   delivery off (``JMAPOutbound/deliveryOff(_:changes:)``).
    /// - Parameter authenticator: who bearers are; nil for the fixed ``FakeAuthenticator`` of ada, bob and gone.
    /// - Parameter storeDatabase: what the mail store reads through, given the test's database (a
    ///   ``CountingDatabase`` that injects an outage).
    init(
        _ backend: StorageBackend, _ configure: (inout JMAPConfiguration) -> Void = { _ in },
        outbound: ((TestDatabase, MailChanges) -> JMAPOutbound)? = nil,
        authenticator: (any PrincipalAuthenticator)? = nil,
        storeDatabase: (any SQLDatabase) -> any SQLDatabase = { $0 }
    ) throws {
        test = try backend.makeDatabase(logger: Logger(label: "jmap-tests"))
        store = MailStore(database: storeDatabase(test.database))
        let delivery = LocalDelivery(directory: Self.directory, store: store, clock: { 1_700_000_000 })
        var configuration = JMAPConfiguration(baseURL: "http://jmap.test/")
        configuration.rateLimitsEnabled = false
        configure(&configuration)
        let submissions = submissions
        let streamActivity = streamActivity
        let outbound = outbound?(test, store.changes) ?? .deliveryOff(test.database, changes: store.changes)
        self.outbound = outbound
        let service = JMAPService(
            configuration: configuration,
            authenticator: authenticator
                ?? FakeAuthenticator(principals: ["ada": Self.ada, "bob": Self.bob, "gone": Self.gone], failing: "broken"),
            store: store, directory: Self.directory, delivery: delivery, clock: { 1_700_000_000 },
            onSubmission: { submissions.record($0) }, onUnexpectedError: unexpected.reporter,
            onEventStream: { streamActivity.record($0) },
            outbound: outbound)
        self.service = service
        var router = ContextRouter()
        service.register(into: &router)
        self.router = router
    }

    /// The state a push watching every type names (an event's `id`, a `pushState`): the principal's mail state and its
    /// submissions' state in the ledger, `<mail>.<EmailSubmission>`.
    func pushState(of principal: Principal = ada) async throws -> String {
        let mail = try await store.state(address: principal.mailbox.address)
        return "\(mail).\(try await outbound.ledger.state(accountID: principal.accountID))"
    }

    /// Sends a request through the routes, as the server would.
    func send(_ method: HTTPMethod, _ path: String, bearer: String?, body: String = "") async -> HTTPResponse {
        var headers = HTTPHeaders()
        if let bearer { headers.add("Authorization", "Bearer " + bearer) }
        let request = HTTPRequest(
            method: method, target: path, version: .http1_1, headers: headers, body: Array(body.utf8),
            remoteAddress: "192.0.2.7", requestID: "jmap-test")
        return await router.respond(to: request)
    }

    /// Opens `GET path` as a stream route, with a writer that keeps what is written (`end()` plays the client
    /// leaving).
    func openStream(_ path: String, bearer: String?, lastEventID: String? = nil) -> CollectingResponseWriter {
        var headers = HTTPHeaders()
        if let bearer { headers.add("Authorization", "Bearer " + bearer) }
        if let lastEventID { headers.add("Last-Event-ID", lastEventID) }
        let request = HTTPRequest(
            method: .GET, target: path, version: .http1_1, headers: headers, body: [], remoteAddress: "192.0.2.7",
            requestID: "jmap-test")
        let writer = CollectingResponseWriter()
        guard case .found(let route, let parameters) = router.match(method: .GET, path: request.path),
            case .stream(let handler) = route.handler
        else {
            Issue.record("no stream route for \(path)")
            writer.respond(HTTPResponse(status: .notFound))
            return writer
        }
        handler(request, RequestContext(request), parameters, writer)
        return writer
    }

    /// `POST /jmap/api` with `calls` under every capability; the `methodResponses`.
    func api(_ bearer: String, _ calls: String) async throws -> [JSONValue] {
        let using = #"["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail","urn:ietf:params:jmap:submission","urn:ietf:params:jmap:blob"]"#
        let response = await send(.POST, "/jmap/api", bearer: bearer, body: #"{"using":\#(using),"methodCalls":\#(calls)}"#)
        #expect(response.status.code == 200)
        return try #require(try JSONValue.parse(response.body)["methodResponses"]?.arrayValue)
    }
}

/// The submission outcomes the service reported.
final class SubmissionLog: Sendable {
    private let outcomes = Mutex<[JMAPService.SubmissionOutcome]>([])

    func record(_ outcome: JMAPService.SubmissionOutcome) { outcomes.withLock { $0.append(outcome) } }
    var all: [JMAPService.SubmissionOutcome] { outcomes.withLock { $0 } }
}

/// What the event source told its metrics.
final class StreamActivityLog: Sendable {
    private let activity = Mutex<[JMAPService.EventStreamActivity]>([])

    func record(_ entry: JMAPService.EventStreamActivity) { activity.withLock { $0.append(entry) } }
    var all: [JMAPService.EventStreamActivity] { activity.withLock { $0 } }
}
