import AgentAuth
import Audit
import ComputePool
import DNS
import CustomDomains
import DKIMKeys
import HTTP1
import Owners
import Passkeys
import PasswordHashing
import PosternTestSupport
import SecondFactors
import ServerKit
import SignInProviders
import Storage
import Testing
import WebAuthn

/// Argon2id at test cost (64 KiB, one pass): the rules under test do not depend on the cost.
let cheapArgon2 = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

/// The owners' service over a new database of the backend under test, its routes, a test clock and a cookie jar.
final class OwnersHarness: @unchecked Sendable {
    let test: TestDatabase
    let clock = TestClock()
    let service: OwnerService
    var router: ContextRouter
    var browser = RouteBrowser(requestID: "owners-test")
    /// Cookies the "browser" holds, as the last responses set them.
    var cookies: [String: String] {
        get { browser.cookies }
        set { browser.cookies = newValue }
    }

    /// The audit trail the service records to: the SQL table of `test` unless the test gives another log.
    let auditLog: any AuditLog
    /// The owners' domains' DKIM keys, when the harness was made with them.
    let dkimKeys: DKIMKeyStore?
    /// The custom domains' model the service is given, as the runtime gives its one.
    let customDomains: CustomDomains
    /// The resolver the service checks domains with (``DNSResolver/test(_:)``).
    let resolver: DNSResolver

    /// - Parameters:
    ///   - dkim: whether owners' domains get DKIM keys, as the composition root gives them (``dkimKeys``).
    ///   - dns: the loopback DNS server domain checks ask; nil for none (a test that checks no domain).
    ///   - domainMailboxes: the surfaces' mailboxes on custom domains; default the agent inboxes', as the runtime's.
    ///   - relyingParty: the passkeys' relying party; nil offers no passkeys.
    init(
        _ backend: StorageBackend, auditLog: (any AuditLog)? = nil, dkim: Bool = false,
        dns: LoopbackDNSServer? = nil, domainMailboxes: [any CustomDomainMailboxes]? = nil,
        relyingParty: RelyingParty? = nil, configure: (inout OwnersConfiguration) -> Void = { _ in }
    ) throws {
        test = try backend.makeDatabase()
        let log = auditLog ?? SQLAuditLog(database: test.database)
        self.auditLog = log
        var configuration = OwnersConfiguration(publicURL: "http://127.0.0.1:8080")
        configuration.argon2 = cheapArgon2
        configuration.rateLimitsEnabled = false
        configure(&configuration)
        let clock = clock
        let dkimKeys =
            try dkim
            ? DKIMKeyStore(
                database: test.database, sealingSecret: "a-test-key-secret-of-more-than-16-bytes", clock: { clock.now })
            : nil
        self.dkimKeys = dkimKeys
        let pool = WorkerPool(threads: 1)
        customDomains = CustomDomains(
            database: test.database, mailboxes: domainMailboxes ?? [AgentDomainMailboxes(database: test.database)],
            signingKeys: dkimKeys.map { DKIMDomainKeys(store: $0, pool: pool) })
        resolver = .test(dns?.address)
        service = try OwnerService(
            configuration: configuration, database: test.database, pool: pool, resolver: resolver,
            customDomains: customDomains,
            clock: { clock.now }, monotonicClock: clock.monotonic,
            audit: AuditTrail(log, clock: { clock.now }), passkeyStore: PasskeyStore(database: test.database),
            relyingParty: relyingParty, identities: SignInIdentityStore(database: test.database, clock: { clock.now }),
            secondFactors: SecondFactorStore(.owners, database: test.database, sealing: nil, clock: { clock.now }))
        var router = ContextRouter()
        service.register(into: &router)
        self.router = router
    }

    /// Sends a request with the jar's cookies and keeps what it sets.
    func send(_ method: HTTPMethod, _ target: String, form: [String: String]? = nil) async -> HTTPResponse {
        await browser.send(method, target, form: form?.map { ($0.key, $0.value) }, through: router)
    }

    /// The CSRF token in the page `response` (its hidden field).
    static func csrf(in response: HTTPResponse) -> String? {
        let html = String(decoding: response.body, as: UTF8.self)
        guard let range = html.range(of: "name=\"csrf_token\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Opens the sign-in page and posts `email` and `password` with its CSRF token.
    func signIn(_ email: String, _ password: String, next: String = "/owner") async throws -> HTTPResponse {
        let page = await send(.GET, "/owner/sign-in?next=" + PercentEncoding.encode(next))
        let token = try #require(Self.csrf(in: page))
        return await send(
            .POST, "/owner/sign-in", form: ["email": email, "password": password, "csrf_token": token, "next": next])
    }
}
