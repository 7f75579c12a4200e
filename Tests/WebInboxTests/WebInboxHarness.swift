import AgentAuth
import AppPasswords
import Audit
import AuthCrypto
import BrowserPages
import ComputePool
import CustomDomains
import DKIMKeys
import Fetch
import Directory
import DNS
import Foundation
import HTTP1
import JMAP
import JWT
import Logging
import MIME
import MailDelivery
import MailStore
import MailSandbox
import MailSignIn
import MailboxAccounts
import MailboxRoutes
import MailTD
import OperatorAPI
import MailboxWebInbox
import OutboundQueue
import Owners
import Passkeys
import PasswordHashing
import PosternTestSupport
import SecondFactors
import ServerKit
import SignInProviders
import Storage
import Synchronization
import Testing
import WebAuthn
import WebInbox
import Webhooks

@testable import PosternApp

/// Argon2id at test cost: the rules under test do not depend on the cost.
let cheapArgon2 = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

/// The web inbox as the composition root builds it, over a fresh database of the backend under test: the owners'
/// service and pages (their sign-in), the Mail.td surface behind the web inbox's port, agent inboxes, one mail store,
/// JMAP behind the sender port (outside recipients queued, at most ``outsideLimit`` an hour), the sandbox behind the
/// captures port, a test clock; requests go through one router, each browser with its own cookie jar.
final class WebInboxHarness: Sendable {
    static let agentDomain = "agents.localhost"
    static let publicURL = "http://127.0.0.1:8080"
    /// Recipients on other domains an inbox may send to in an hour.
    static let outsideLimit = 2
    /// What the sender rule says of every inbox (allowed by default); a test changes it to hold mail.
    let outsideSender = OutsideSenderSwitch()

    let test: TestDatabase
    let clock = TestClock()
    let owners: OwnerService
    let mailbox: MailboxService
    /// The Pro users' SMTP sandboxes, over the same surface and mail store.
    let sandbox: MailSandbox
    /// The Pro users' webhooks, over the same surface (their `/api/user/webhooks` routes are on ``router``).
    let webhooks: WebhooksController
    /// The one owner of mail credentials, as the root builds it: IMAP's and POP3's sign-in, and the web inbox's keys.
    let mailCredentials: MailSignIn
    /// The same owner of mail credentials with owners' access tokens checked by the tokens given (the harness's own
    /// takes none).
    let mailCredentialsTaking: @Sendable (MailSignIn.OwnerTokens) -> MailSignIn
    let service: WebInboxService
    /// Pro users' sign-in methods (the one controller's Pro mount), routed beside the web inbox.
    let signInMethods: ProSignInMethods
    let mail: MailStore
    let router: ContextRouter

    /// - Parameters:
    ///   - backend: the storage backend the harness's database is on.
    ///   - signIns: the web inbox's sign-in port; default: the Mail.td surface's, as the composition root gives it.
    ///   - configure: changes to the web inbox's settings (the live list's limits).
    ///   - relyingParty: Pro users' passkeys' relying party (the audit trail in the database's table); nil offers no
    ///     passkeys.
    ///   - provider: an identity provider for Pro users (``WebInboxProviders``, mounted by ``ProSignInMethods``, the audit trail in the database's
    ///     table): the tests hand the web inbox verified identities; nil offers none.
    ///   - transport: the provider's transport; default: one never reached.
    ///   - dnsResolver: the `host:port` the Mail.td surface's domain checks ask (a ``LoopbackDNSServer``); nil: the
    ///     configuration's default, for tests that check no domain.
    init(
        _ backend: StorageBackend, signIns: (any WebInboxSignIn)? = nil, relyingParty: RelyingParty? = nil,
        provider: SignInProvider? = nil, transport: any ProviderTransport = UnreachableProvider(),
        dnsResolver: String? = nil,
        _ configure: (inout WebInboxConfiguration) -> Void = { _ in }
    ) throws {
        test = try backend.makeDatabase(logger: Logger(label: "webinbox-tests"))
        let database = test.database
        let clock = clock
        let pool = WorkerPool(threads: 2)
        var ownerSettings = OwnersConfiguration(publicURL: Self.publicURL)
        ownerSettings.argon2 = cheapArgon2
        ownerSettings.rateLimitsEnabled = false
        owners = try OwnerService(
            configuration: ownerSettings, database: database, pool: pool, resolver: .test(nil),
            customDomains: CustomDomains(database: database), clock: { clock.now }, monotonicClock: clock.monotonic,
            secondFactors: SecondFactorStore(.owners, database: database, sealing: nil, clock: { clock.now }))
        mail = MailStore(database: database)
        let keys = try JWTKeySet(
            keys: [JWTKey.hmac(kid: "test-hs", secret: SecureRandom.bytes(32))], activeHMAC: "test-hs", activeRSA: nil)
        let mailboxSettings = MailboxConfiguration(
            issuer: Self.publicURL, domains: ["mail.localhost"], proDomains: ["pro.localhost"],
            rateLimitsEnabled: false, powRequired: false, argon2: cheapArgon2,
            authKeyArgon2: Argon2Parameters(memoryKiB: 256, iterations: 1, parallelism: 1))
        // Custom domains get DKIM keys as the composition root gives them, so their `_domainkey` records show.
        let signingKeys = DKIMDomainKeys(
            store: try DKIMKeyStore(
                database: database, sealingSecret: "a-test-key-secret-of-more-than-16-bytes", clock: { clock.now }),
            pool: pool)
        mailbox = try MailboxService(
            configuration: mailboxSettings, keys: keys, store: MailboxStore(database: database), mail: mail,
            ledger: ChallengeLedger(database: database), pool: pool, resolver: .test(dnsResolver),
            customDomains: CustomDomains(
                database: database, mailboxes: [MailboxDomainMailboxes(database: database)], signingKeys: signingKeys),
            clock: { clock.now },
            monotonicClock: clock.monotonic)
        sandbox = MailSandbox(surface: mailbox, store: SandboxStore(database: database), mail: mail)
        let claims = CustomDomains(database: database)
        let agents = AgentInboxDirectory(
            accounts: AgentAccountStore(database: database), claims: claims, domain: Self.agentDomain,
            quota: 40_000_000)
        var jmapSettings = JMAPConfiguration(baseURL: Self.publicURL)
        jmapSettings.rateLimitsEnabled = false
        let outbound = JMAPOutbound(
            ledger: OutboundQueue(database: database), sendsOutside: true,
            limits: [SendLimit(name: "hourly", count: Self.outsideLimit, windowSeconds: 3600)],
            sender: { [outsideSender] _ in outsideSender.value })
        let jmap = JMAPService(
            configuration: jmapSettings, authenticator: NoBearers(), store: mail, directory: agents,
            delivery: LocalDelivery(directory: agents, store: mail, clock: { clock.now }), clock: { clock.now },
            outbound: outbound)
        webhooks = WebhooksController(surface: mailbox, store: WebhookStore(database: database))
        var settings = WebInboxConfiguration(publicURL: Self.publicURL)
        configure(&settings)
        let directory = LocalDirectory([
            MailboxDirectory(
                database: database, domains: mailboxSettings.domains + mailboxSettings.proDomains, claims: claims),
            agents,
        ])
        // The one owner of mail credentials, as the root builds it (the web inbox asks it of Mail.td's only).
        let (accountService, backoff) = (mailbox.accounts, settings.backoff)
        mailCredentialsTaking = { owners in
            MailSignIn(
                accounts: accountService,
                agents: MailSignIn.AgentKeys(prefix: AgentAPIKey.prefix, authenticator: NoBearers()), owners: owners,
                directory: directory, throttle: SignInThrottle(database: database, backoff: backoff),
                audit: AuditTrail(SQLAuditLog(database: database), clock: { clock.now }),
                appPasswords: AppPasswordStore(database: database, limit: 20), clock: { clock.now })
        }
        mailCredentials = mailCredentialsTaking(
            MailSignIn.OwnerTokens(
                verifier: NoAccessTokens(),
                principals: OwnerPrincipals(inboxes: makeOwnedInboxes(database, clock), directory: agents)))
        let accounts = MailboxWebInboxSignIn(
            accounts: mailbox.accounts, credentials: mailCredentials, sandbox: sandbox, directory: directory)  // the root's
        let passkeys = relyingParty.map {
            WebInboxPasskeys(
                ceremonies: PasskeyCeremonies(
                    party: $0, store: PasskeyStore(database: database), challenges: PasskeyChallenges(database: database)),
                audit: AuditTrail(SQLAuditLog(database: database), clock: { clock.now }))
        }
        let providers = provider.map { provider in
            var providers = SignInProvidersConfiguration()
            providers.providers = [provider]
            return WebInboxProviders(
                flow: SignInFlow(
                    configuration: providers, publicURL: Self.publicURL,
                    transactions: SignInTransactionStore(database: database, clock: { clock.now }),
                    transport: { _ in transport }, clock: { clock.now }),
                identities: SignInIdentityStore(database: database, clock: { clock.now }), accounts: accounts,
                audit: AuditTrail(SQLAuditLog(database: database), clock: { clock.now }))
        }
        service = try WebInboxService(
            configuration: settings, ownerBrowser: owners.browser, pages: owners.pages,
            ownedInboxes: makeOwnedInboxes(database, clock),
            signIns: signIns ?? accounts, mail: mail, database: database, clock: { clock.now },
            sender: JMAPWebInboxSender(
                jmap: jmap, principals: OwnerPrincipals(inboxes: makeOwnedInboxes(database, clock), directory: agents)),
            captures: accounts, linksDashboard: true,
            signInOffer: WebInboxSignInOffer(passkeys: passkeys, providers: providers),
            secondFactors: SecondFactorStore(.proUsers, database: database, sealing: nil, clock: { clock.now }),
            audit: AuditTrail(SQLAuditLog(database: database), clock: { clock.now }))
        signInMethods = ProSignInMethods(inbox: service, passkeys: passkeys, providers: providers)

        var router = ContextRouter()
        owners.register(into: &router)
        MailTDAPI(surface: mailbox).register(into: &router)
        OperatorController(surface: mailbox).register(on: &router)
        webhooks.register(on: &router)
        service.register(into: &router)
        ProTwoStepPages(inbox: service).register(into: &router)
        signInMethods.register(into: &router)
        ProDashboardController(
            inbox: service, surface: mailbox, webhooks: webhooks, sandboxes: sandbox, signInMethods: signInMethods,
            appPasswords: AppPasswordStore(database: database, limit: 20)
        ).register(into: &router)
        self.router = router
    }

    /// The inboxes owners hold, on ``agentDomain``.
    var ownedInboxes: AgentOwnedInboxes { makeOwnedInboxes(test.database, clock) }

    /// A new browser: an empty cookie jar.
    func browser() -> Browser { Browser(router: router) }

    // MARK: - People

    /// A Mail.td account made as a client makes it (`POST /api/accounts`, a v2 verifier stored); its id.
    @discardableResult
    func account(_ address: String, password: String = "secret-1", bearer: String? = nil) async throws -> String {
        let browser = browser()
        let json = #"{"address":"\#(address)","password":"\#(password)"}"#
        let response = await browser.send(
            .POST, "/api/accounts", json: json, headers: bearer.map { [("Authorization", "Bearer " + $0)] } ?? [])
        try #require(response.status == .created)
        return try #require(Self.jsonField("id", response))
    }

    /// A Mail.td account stored before `auth_key` (a v1 account): only an Argon2id hash of its password.
    func legacyAccount(_ address: String, password: String) async throws {
        let hash = try await PasswordHasher(parameters: cheapArgon2, pool: WorkerPool(threads: 1)).hash(password)
        _ = try await test.database.write { connection in
            try connection.run(
                "INSERT INTO mailbox_accounts (id, address, password_hash, quota, created_at) VALUES (?, ?, ?, ?, 1)",
                [.text(UUID().uuidString.lowercased()), .text(address), .text(hash), .integer(40_000_000)])
        }
    }

    /// A Pro user (`postern pro create`) and their Pro JWT.
    func proUser(_ email: String, password: String = "pro-password") async throws -> String {
        try await proLogin(email, password: password).jwt
    }

    /// A Pro user (`postern pro create`): their id and Pro JWT.
    func proLogin(_ email: String, password: String = "pro-password") async throws -> (id: String, jwt: String) {
        let user = try await mailbox.accounts.createProUser(email: email, password: password, maxAccounts: 10, maxDomains: nil)
        let browser = browser()
        let login = await browser.send(
            .POST, "/api/user/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        try #require(login.status == .ok)
        return (user.id, try #require(Self.jsonField("token", login)))
    }

    /// A `tm_pro_` API token of the Pro user whose JWT is `bearer`.
    func apiToken(bearer: String) async throws -> String {
        let browser = browser()
        let response = await browser.send(
            .POST, "/api/user/tokens", json: #"{"name":"web"}"#, headers: [("Authorization", "Bearer " + bearer)])
        try #require(response.status == .created)
        return try #require(Self.jsonField("token", response))
    }

    /// An owner with one agent inbox, signed in in a new browser.
    func owner(_ email: String, inbox username: String) async throws -> (browser: Browser, inbox: String) {
        let owner = try await owners.owners.create(email: email, password: "owner-password-1")
        let (inbox, _) = try await ownedInboxes.createInbox(username: username, ownerID: owner.id)
        let browser = browser()
        let page = await browser.send(.GET, "/owner/sign-in?next=/inbox")
        let token = try #require(Browser.csrf(in: page))
        let signedIn = await browser.send(
            .POST, "/owner/sign-in",
            form: ["email": email, "password": "owner-password-1", "csrf_token": token, "next": "/inbox"])
        try #require(signedIn.status == .seeOther)
        return (browser, inbox.address)
    }

    // MARK: - Mail

    /// Delivers a raw message to `address`, parsed as SMTP delivery parses it; its id.
    @discardableResult
    func deliver(_ raw: String, to address: String) async throws -> String {
        let bytes = Array(raw.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let parsed = try MIMEParser.parse(bytes)
        let ids = try await mail.deliver(
            NewMailMessage(parsed, envelopeFrom: "sender@example.com", raw: bytes),
            to: [.init(address: address, quota: 40_000_000)], folder: .inbox, now: clock.now)
        clock.advance(1)
        return try #require(ids.first)
    }

    /// A plain message from `from` with `subject`.
    static func plain(subject: String, from: String = "Ada <ada@example.com>", body: String = "Hello there")
        -> String
    {
        """
        From: \(from)
        To: someone@example.com
        Subject: \(subject)
        Message-ID: <\(UUID().uuidString)@example.com>
        Content-Type: text/plain; charset=utf-8

        \(body)

        """
    }

    static func jsonField(_ name: String, _ response: HTTPResponse) -> String? {
        let text = String(decoding: response.body, as: UTF8.self)
        guard let range = text.range(of: "\"\(name)\":\"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }
}

func makeOwnedInboxes(_ database: any SQLDatabase, _ clock: TestClock) -> AgentOwnedInboxes {
    AgentOwnedInboxes(
        accounts: AgentAccountStore(database: database), domain: WebInboxHarness.agentDomain, clock: { clock.now })
}

/// JMAP's authenticator here: no bearer proves anyone (the web inbox runs JMAP in-process, as an owner's inbox).
struct NoBearers: PrincipalAuthenticator {
    func principal(for credentials: Credentials) async throws -> Principal? { nil }
}

/// No owner's access token is valid (the web inbox's tests sign no owner in through the mail credentials' owner).
struct NoAccessTokens: AccessGrantAuthenticator {
    func grant(for token: String, resources: Set<AccessGrant.Resource>) async throws -> AccessGrant {
        throw AuthenticationRefusal(.invalidToken, "no access tokens here")
    }
}

/// A browser: a cookie jar over the router. A class, so that `#expect(await browser.send(...))` needs no mutable
/// capture; `@unchecked Sendable` because each test drives its browsers from its one task, one request at a time.
final class Browser: @unchecked Sendable {
    let router: ContextRouter
    var jar = RouteBrowser(requestID: "webinbox-test")

    init(router: ContextRouter) { self.router = router }

    func send(
        _ method: HTTPMethod, _ target: String, form: [String: String]? = nil, json: String? = nil,
        headers: [(String, String)] = []
    ) async -> HTTPResponse {
        await jar.send(
            method, target, form: form?.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, json: json,
            headers: headers, through: router)
    }

    /// The CSRF token in a page (its first hidden field).
    static func csrf(in response: HTTPResponse) -> String? {
        let html = String(decoding: response.body, as: UTF8.self)
        guard let range = html.range(of: "name=\"csrf_token\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Signs in at `/inbox/sign-in` with the form of `kind` and `fields`; the answer to the post.
    func signIn(_ fields: [String: String]) async throws -> HTTPResponse {
        let page = await send(.GET, "/inbox/sign-in")
        let token = try #require(Self.csrf(in: page))
        return await send(.POST, "/inbox/sign-in", form: fields.merging(["csrf_token": token]) { a, _ in a })
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// The harness's sender rule, switchable from a test: each submission and release asks it.
final class OutsideSenderSwitch: Sendable {
    private let state = Mutex<OutsideSender>(.allowed(holder: nil))
    var value: OutsideSender {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
