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
struct JMAPAgent: JMAPTestAccount {
    let username: String
    /// The agent's inbox address.
    let address: String
    /// The bearer the authenticator answers with this agent's principal.
    let capability: String
    /// The JMAP account id.
    let accountID: String
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

/// A ``JMAPService`` on a fresh database of the given backend, with its store, an agent directory and local
/// delivery given to it, driven through its routes with the same calls a client of the whole server makes: agents
/// sign up (an account on the agent domain and a bearer), then speak JMAP. For the flows of the mail methods; the
/// end-to-end suites in PosternAppTests keep what needs the whole server (tokens, processes).
/// One test uses one harness at a time, hence `@unchecked Sendable`.
struct JMAPHarness: JMAPTestClient, @unchecked Sendable {
    /// An agent inbox's quota when none is given: the server's default (40 MiB).
    static let defaultInboxQuota: Int64 = 41_943_040

    let client: RouteClient
    /// The service's public base URL (no trailing slash).
    let baseURL = "http://jmap.test"
    /// The agent inbox domain.
    let agentDomain = "agents.test"
    let test: TestDatabase
    let directory: AgentDirectory
    /// The rate limits' clock: it stands still unless a test advances it, so no bucket refills while a slow
    /// machine runs the test.
    let rateClock: TestClock
    private let inboxQuota: Int64

    /// Where the shared JMAP calls (``JMAPTestClient``) go.
    var requests: RouteClient { client }

    /// The database under the store.
    var database: any SQLDatabase { test.database }

    /// A service with rate limits as given (off by default, as the end-to-end harness had them) and agents'
    /// inboxes of `inboxQuota` bytes.
    static func start(
        _ backend: StorageBackend, rateLimits: Bool = false, inboxQuota: Int64? = nil
    ) async throws -> JMAPHarness {
        try JMAPHarness(backend, rateLimits: rateLimits, inboxQuota: inboxQuota ?? defaultInboxQuota)
    }

    private init(_ backend: StorageBackend, rateLimits: Bool, inboxQuota: Int64) throws {
        test = try backend.makeDatabase(logger: Logger(label: "jmap-flow-tests"))
        let store = MailStore(database: test.database)
        directory = AgentDirectory(domain: agentDomain)
        self.inboxQuota = inboxQuota
        let clock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        let rateClock = TestClock()
        self.rateClock = rateClock
        let delivery = LocalDelivery(directory: directory, store: store, clock: clock)
        var configuration = JMAPConfiguration(baseURL: baseURL)
        configuration.rateLimitsEnabled = rateLimits
        let service = JMAPService(
            configuration: configuration, authenticator: directory, store: store, directory: directory,
            delivery: delivery, clock: clock, monotonicClock: rateClock.monotonic,
            outbound: .deliveryOff(test.database, changes: store.changes))
        var router = ContextRouter()
        service.register(into: &router)
        client = RouteClient(router: router, requestID: "jmap-flow")
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
}
