import AgentAuth
import Audit
import AuthCrypto
import ComputePool
import CustomDomains
import DNS
import Directory
import Foundation
import HTTP1
import JSON
import JWT
import OAuthGrants
import OAuthServer
import Owners
import PasswordHashing
import PosternTestSupport
import SecondFactors
import ServerKit
import Storage
import Testing

let issuer = "http://127.0.0.1:8080"
let jmapResource = issuer + "/jmap"
let callback = "http://127.0.0.1:9999/callback"

/// The authorization server over a new database of the backend under test, with the owners' service (sessions,
/// CSRF) and agent inboxes beside it, a test clock, an Ed25519 key and a cookie jar.
final class OAuthHarness: @unchecked Sendable {
    let test: TestDatabase
    let clock = TestClock()
    let owners: OwnerService
    let inboxes: AgentOwnedInboxes
    let keys: JWTKeySet
    let service: OAuthService
    let pool = WorkerPool(threads: 2)
    var router: ContextRouter
    var browser = RouteBrowser(requestID: "oauth-test")
    /// Cookies the "browser" holds, as the last responses set them.
    var cookies: [String: String] {
        get { browser.cookies }
        set { browser.cookies = newValue }
    }

    init(
        _ backend: StorageBackend, documents: (any OAuthDocumentFetching)? = nil,
        clientKeyDocuments: (any OAuthDocumentFetching)? = nil, capabilityTokens: OAuthCapabilityTokens? = nil,
        identityIssuers: (any OAuthIdentityIssuers)? = nil, openID: (any OIDCLogoutDelivering)? = nil,
        configure: (inout OAuthConfiguration) -> Void = { _ in }
    ) throws {
        test = try backend.makeDatabase()
        let clock = clock
        var ownerSettings = OwnersConfiguration(publicURL: issuer)
        ownerSettings.argon2 = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)
        ownerSettings.rateLimitsEnabled = false
        owners = try OwnerService(
            configuration: ownerSettings, database: test.database, pool: pool, resolver: .test(nil),
            customDomains: CustomDomains(database: test.database), clock: { clock.now },
            monotonicClock: clock.monotonic, audit: AuditTrail(SQLAuditLog(database: test.database), clock: { clock.now }),
            secondFactors: SecondFactorStore(.owners, database: test.database, sealing: nil, clock: { clock.now }))
        inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: test.database), domain: "agents.localhost", clock: { clock.now })
        // With the OpenID Provider on (a logout deliverer given), an RSA and a P-256 key sign ID tokens too.
        keys = try JWTKeySet(
            keys: [try .ed25519(kid: "ed-test", privateKey: Ed25519PrivateKey.generate())]
                + (openID == nil
                    ? []
                    : [
                        try .rsa(kid: "rsa-test", privateKey: TestRSAKey.shared),
                        try .p256(kid: "p256-test", privateKey: P256PrivateKey.generate()),
                    ]),
            activeHMAC: nil, activeRSA: openID == nil ? nil : "rsa-test", activeEdDSA: "ed-test",
            activeES256: openID == nil ? nil : "p256-test")
        service = try Self.service(
            test.database, keys: keys, owners: owners, inboxes: inboxes, pool: pool, clock: clock, documents: documents,
            clientKeyDocuments: clientKeyDocuments, capabilityTokens: capabilityTokens, identityIssuers: identityIssuers,
            openID: openID,
            configure: configure)
        var router = ContextRouter()
        owners.register(into: &router)
        service.register(into: &router)
        self.router = router
    }

    static func service(
        _ database: any SQLDatabase, keys: JWTKeySet, owners: OwnerService, inboxes: any OwnedInboxes,
        pool: WorkerPool, clock: TestClock, documents: (any OAuthDocumentFetching)? = nil,
        clientKeyDocuments: (any OAuthDocumentFetching)? = nil, capabilityTokens: OAuthCapabilityTokens? = nil,
        identityIssuers: (any OAuthIdentityIssuers)? = nil, openID: (any OIDCLogoutDelivering)? = nil,
        configure: (inout OAuthConfiguration) -> Void = { _ in }
    ) throws -> OAuthService {
        var configuration = OAuthConfiguration(issuer: issuer)
        configuration.rateLimitsEnabled = false
        configure(&configuration)
        return try OAuthService(
            configuration: configuration, keys: keys, database: database, grants: OAuthGrantStore(database: database),
            pool: pool, browser: owners.browser,
            inboxes: inboxes, metadataDocuments: documents, clock: { clock.now }, monotonicClock: clock.monotonic,
            audit: AuditTrail(SQLAuditLog(database: database), clock: { clock.now }),
            clientKeyDocuments: clientKeyDocuments, capabilityTokens: capabilityTokens, identityIssuers: identityIssuers,
            openIDOwners: openID == nil ? nil : owners.owners, logoutDelivery: openID)
    }

    // MARK: - Requests

    /// Sends a request with the jar's cookies and keeps what it sets.
    func send(
        _ method: HTTPMethod, _ target: String, form: [(String, String)]? = nil, json: String? = nil,
        headers extra: [(String, String)] = [], through router: ContextRouter? = nil
    ) async -> HTTPResponse {
        await browser.send(method, target, form: form, json: json, headers: extra, through: router ?? self.router)
    }

    /// Exchanges `issued`'s code as `clientID` (with its verifier); the refresh token.
    func redeem(_ issued: (grant: OAuthGrant, code: String, verifier: String), clientID: String) async throws
        -> String
    {
        try Self.refreshToken(await exchange(issued.code, clientID: clientID, verifier: issued.verifier))
    }

    /// The refresh token a token response carries.
    static func refreshToken(_ response: HTTPResponse) throws -> String {
        try #require(
            json(response)?["refresh_token"]?.stringValue, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// The JSON body of `response`.
    static func json(_ response: HTTPResponse) -> JSONValue? { try? JSONValue.parse(response.body) }

    /// Registers a public client with `redirect`; returns its id.
    func registerClient(redirect: String = callback, method: String? = nil) async throws -> (id: String, secret: String?) {
        let methodMember = method.map { #","token_endpoint_auth_method":"\#($0)""# } ?? ""
        let response = await send(
            .POST, "/oauth/register",
            json: #"{"client_name":"Test app","redirect_uris":["\#(redirect)"]\#(methodMember)}"#)
        #expect(response.status == .created)
        let body = try #require(Self.json(response))
        return (try #require(body["client_id"]?.stringValue), body["client_secret"]?.stringValue)
    }

    /// A new owner with one inbox; returns the owner's id and the inbox's account id.
    func owner(_ email: String = "owner@example.com", inbox: String = "owned-inbox") async throws -> (id: String, inbox: String) {
        let owner = try await owners.owners.create(email: email, password: "correct horse battery")
        let created = try await inboxes.createInbox(username: inbox, ownerID: owner.id)
        return (owner.id, created.inbox.accountID)
    }

    /// Signs the browser in as `email`.
    func signIn(_ email: String = "owner@example.com") async throws {
        let page = await send(.GET, "/owner/sign-in?next=%2Fowner")
        let token = try #require(Self.hidden("csrf_token", in: page))
        let response = await send(
            .POST, "/owner/sign-in",
            form: [("email", email), ("password", "correct horse battery"), ("csrf_token", token), ("next", "/owner")])
        #expect(response.status == .seeOther)
    }

    /// A grant and its code made through the store, as a consent would (PKCE verifier returned).
    func code(
        clientID: String, ownerID: String, agentID: String?, scopes: [String] = ["mail.read", "mail.send"],
        boundAccountID: String? = nil
    ) async throws -> (grant: OAuthGrant, code: String, verifier: String) {
        let verifier = Base64URL.encode(SecureRandom.bytes(32))
        let (grant, code) = try await service.grants.approve(
            ownerID: ownerID, clientID: clientID, agentID: agentID, boundAccountID: boundAccountID,
            permissions: try #require(MailPermissions(scope: scopes.joined(separator: " "))),
            resource: jmapResource,
            redirectURI: callback, codeChallenge: Self.challenge(verifier), now: clock.now,
            codeLifetime: service.configuration.codeLifetime, grantLifetime: service.configuration.grantLifetime)
        return (grant, code, verifier)
    }

    /// Exchanges `code` at the token endpoint.
    func exchange(_ code: String, clientID: String, verifier: String, extra: [(String, String)] = []) async -> HTTPResponse {
        await send(
            .POST, "/oauth/token",
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", callback),
                ("client_id", clientID), ("code_verifier", verifier),
            ] + extra)
    }

    /// Refreshes with `token`.
    func refresh(_ token: String, clientID: String, extra: [(String, String)] = [], through router: ContextRouter? = nil)
        async -> HTTPResponse
    {
        await send(
            .POST, "/oauth/token",
            form: [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", clientID)] + extra,
            through: router)
    }

    /// Every audit event recorded, oldest first.
    func auditEvents() async throws -> [AuditEvent] {
        try await SQLAuditLog(database: test.database).events(since: nil, ownerID: nil, limit: 1000).reversed()
    }

    static func challenge(_ verifier: String) -> String { Base64URL.encode(SHA256.hash(Array(verifier.utf8))) }

    /// The `error` of an OAuth JSON error response.
    static func error(_ response: HTTPResponse) -> String? { json(response)?["error"]?.stringValue }

    /// The value of the hidden field (or first input) named `name` in the page `response`.
    static func hidden(_ name: String, in response: HTTPResponse) -> String? {
        let html = String(decoding: response.body, as: UTF8.self)
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The query items of a `Location` header.
    static func location(_ response: HTTPResponse) -> [String: String] {
        guard let location = response.headers["Location"], let query = location.split(separator: "?", maxSplits: 1).last
        else { return [:] }
        var items: [String: String] = [:]
        for (name, value) in HTTPRequest.items(ofQuery: String(query)) { items[name] = value }
        return items
    }
}
