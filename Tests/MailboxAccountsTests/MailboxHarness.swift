import Audit
import DNS
import AuthCrypto
import ClientAddress
import ComputePool
import CustomDomains
import DKIMKeys
import EmbeddedResources
import Foundation
import HTTP1
import JSON
import JWT
import Logging
import MailDelivery
import MailSandbox
import MailStore
import MetricsTestKit
import PasswordHashing
import PosternTestSupport
import ServerKit
import Storage
import Testing
import Webhooks

@testable import MailboxAccounts
@testable import MailboxRoutes
import MailTD
@testable import OperatorAPI

/// A response with its body parsed as JSON when it is JSON.
struct TestResponse {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var json: JSONValue? { try? JSONValue.parse(body) }
    subscript(key: String) -> JSONValue? { json?[key] }
    /// The `error` code, when the body is an error.
    var error: String? { self["error"]?.stringValue }
    /// The string field `key`, or "" when absent.
    func string(_ key: String) -> String { self[key]?.stringValue ?? "" }
}

/// A MailboxService over a fresh, migrated database of the given backend, with cheap Argon2, a low
/// PoW difficulty and rate limits off unless a test turns them on. Requests go through the router.
final class MailboxHarness: Sendable {
    static let difficulty = 6
    /// `POSTERN_KEY_SECRET` of the DKIM keys (sealed with it on PostgreSQL).
    static let keySecret = "a-test-key-secret-of-more-than-16-bytes"

    let test: TestDatabase
    /// What the service's stores use: the test database, behind a counter when the harness was made `counting`.
    let database: any SQLDatabase
    /// What the service asked of the database, when the harness was made `counting`.
    let storage: CountingDatabase?
    let service: MailboxService
    /// The SMTP sandbox over the same surface and mail store.
    let sandbox: MailSandbox
    /// Delivery as SMTP does it: the mailbox directory resolves each recipient and names its holder.
    let delivery: LocalDelivery
    let router: ContextRouter
    let clock: TestClock
    let pool: WorkerPool
    let keys: JWTKeySet
    let metrics = TestMetrics()
    /// Request ids of the requests answered with a bare 500, as the service reported them.
    let unexpected = RequestIDLog()
    /// Resolves each request's context as the app does.
    let trustedProxies: ClientAddressResolver
    /// The custom domains' DKIM keys, when the harness was made with them.
    let dkimKeys: DKIMKeyStore?

    /// Creates a harness; `trustedProxies` are the CIDRs whose `X-Forwarded-For` the contexts believe; with `dkim`,
    /// custom domains get DKIM keys as the composition root gives them (``dkimKeys``); `counting` puts the stores'
    /// database behind a ``CountingDatabase`` (``storage``), and `beforeStatement` (which implies it) sees each
    /// statement first and may fail it (an injected outage).
    init(
        _ backend: StorageBackend, pool: WorkerPool = WorkerPool(threads: 2), trustedProxies: [String] = [],
        dkim: Bool = false, counting: Bool = false, dns: LoopbackDNSServer? = nil,
        otherDomainMailboxes: [any CustomDomainMailboxes] = [],
        configure: (inout MailboxConfiguration) -> Void = { _ in },
        beforeStatement: (@Sendable (String) throws -> Void)? = nil) throws {
        self.trustedProxies = ClientAddressResolver(trustedProxies: trustedProxies)
        test = try backend.makeDatabase(logger: Logger(label: "mailbox-tests"))
        storage =
            counting || beforeStatement != nil
            ? CountingDatabase(test.database, beforeStatement: beforeStatement ?? { _ in }) : nil
        let database: any SQLDatabase = storage ?? test.database
        self.database = database
        let clock = TestClock(1_750_000_000)
        self.clock = clock
        self.pool = pool
        var configuration = MailboxConfiguration(
            issuer: "http://postern.test", powDifficulty: Self.difficulty,
            domains: ["mail.localhost", "Alt.Localhost"],
            proDomains: ["pro.localhost"], rateLimitsEnabled: false,
            argon2: Argon2Parameters(memoryKiB: 256, iterations: 1, parallelism: 1),
            authKeyArgon2: Argon2Parameters(memoryKiB: 256, iterations: 1, parallelism: 1))
        configure(&configuration)
        let dkimKeys =
            try dkim ? DKIMKeyStore(database: database, sealingSecret: Self.keySecret, clock: { clock.seconds }) : nil
        self.dkimKeys = dkimKeys
        keys = try Self.keySet()
        // As the composition root builds them: one mail store whose deliveries queue webhook events.
        let mail = MailStore(database: database, arrivals: WebhookArrivals())
        let sandboxStore = SandboxStore(database: database)
        service = try MailboxService(
            configuration: configuration, keys: keys, store: MailboxStore(database: database), mail: mail,
            ledger: ChallengeLedger(database: database), pool: pool, resolver: .test(dns?.address),
            customDomains: CustomDomains(
                database: database, mailboxes: [MailboxDomainMailboxes(database: database)] + otherDomainMailboxes,
                signingKeys: dkimKeys.map { DKIMDomainKeys(store: $0, pool: pool) }),
            clock: { clock.seconds }, monotonicClock: clock.monotonic, metricsFactory: metrics,
            onUnexpectedError: unexpected.reporter,
            audit: AuditTrail(SQLAuditLog(database: database), clock: { clock.seconds }))
        sandbox = MailSandbox(surface: service, store: sandboxStore, mail: mail)
        delivery = LocalDelivery(
            directory: MailboxDirectory(
                database: database, domains: configuration.domains + configuration.proDomains,
                claims: CustomDomains(database: database)),
            store: mail, clock: { clock.seconds })
        var router = ContextRouter()
        MailTDAPI(surface: service).register(into: &router)
        OperatorController(surface: service).register(on: &router)
        WebhooksController(surface: service, store: WebhookStore(database: database)).register(on: &router)
        sandbox.register(on: &router)
        self.router = router
    }

    /// Every audit event recorded, oldest first.
    func auditEvents() async throws -> [AuditEvent] {
        try await SQLAuditLog(database: database).events(since: nil, ownerID: nil, limit: 1000).reversed()
    }

    /// An RSA key in every harness's set, as in the app's (which signs capabilities and remote logins with it):
    /// the surface must not take a token it signs. Generated once: it is slow.

    static func keySet() throws -> JWTKeySet {
        try JWTKeySet(
            keys: [
                JWTKey.hmac(kid: "test-hs", secret: SecureRandom.bytes(32)), JWTKey.rsa(kid: "test-rs", privateKey: TestRSAKey.shared),
            ], activeHMAC: "test-hs", activeRSA: "test-rs")
    }

    /// Sends a request through the router and the matched handler.
    func send(
        _ method: HTTPMethod, _ target: String, json: String? = nil, bearer: String? = nil,
        remote: String = "192.0.2.10", headers: [(String, String)] = []
    ) async -> TestResponse {
        var fields = HTTPHeaders(headers)
        if let bearer { fields.add("Authorization", "Bearer \(bearer)") }
        if json != nil { fields.add("Content-Type", "application/json") }
        let request = HTTPRequest(
            method: method, target: target, headers: fields, body: Array((json ?? "").utf8), remoteAddress: remote,
            requestID: "test")
        let response = await router.respond(to: request, trustedProxies: trustedProxies)
        return TestResponse(status: response.status.code, headers: response.headers, body: response.body)
    }

    /// A solved challenge: (id, nonce).
    func solvedChallenge(remote: String = "192.0.2.10") async throws -> (id: String, nonce: String) {
        let challenge = await send(.GET, "/api/challenge", remote: remote)
        try #require(challenge.status == 200)
        let salt = challenge.string("salt")
        return (challenge.string("id"), ProofOfWork.solve(salt: salt, difficulty: Self.difficulty))
    }

    /// The JSON body of a free account creation.
    static func createBody(address: String, password: String = "secret1", pow: (id: String, nonce: String)?)
        -> String
    {
        var pairs: [(String, JSONValue)] = [("address", .string(address)), ("password", .string(password))]
        if let pow { pairs.append(("pow", .object([("id", .string(pow.id)), ("nonce", .string(pow.nonce))]))) }
        return String(decoding: JSONValue.object(pairs).serialize(), as: UTF8.self)
    }

    /// Creates a free account with a solved challenge; returns (id, token).
    func createAccount(_ address: String, password: String = "secret1") async throws -> (id: String, token: String) {
        let pow = try await solvedChallenge()
        let response = await send(
            .POST, "/api/accounts", json: Self.createBody(address: address, password: password, pow: pow))
        try #require(response.status == 201)
        return (response.string("id"), response.string("token"))
    }

    /// Creates a Pro user and logs in; returns the Pro JWT.
    func proToken(
        email: String, password: String = "propassword", maxAccounts: Int = 10, maxDomains: Int? = nil
    ) async throws -> String {
        try await service.accounts.createProUser(
            email: email, password: password, maxAccounts: maxAccounts, maxDomains: maxDomains)
        let login = await send(.POST, "/api/user/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        try #require(login.status == 200)
        return login.string("token")
    }

    /// Creates an account with a Pro bearer; returns its id.
    func createProAccount(_ address: String, bearer: String) async throws -> String {
        let response = await send(
            .POST, "/api/accounts", json: Self.createBody(address: address, pow: nil), bearer: bearer)
        try #require(response.status == 201)
        return response.string("id")
    }
}
