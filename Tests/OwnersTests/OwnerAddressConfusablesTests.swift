import ClientAddress
import HTTP1
import Owners
import PosternTestSupport
import Storage
import Testing

@testable import SignInProviders

/// Review 6's medium finding (issue 66 item 1): a provider's verified email written with a Unicode look-alike
/// (KELVIN SIGN, LONG S, `U+0130`, a combining dot, fullwidth letters) signed into the owner with the ASCII address,
/// and with `_ALLOW_SIGNUP` claimed an unused one as "email: proven". Addresses are now compared as addresses
/// (`EmailAddress`: ASCII case only), and providers' sign-in refuses a verified email whose local part is not ASCII.
@Suite("Owners: a look-alike address is another address, and providers' sign-in refuses it (issue 66 item 1)")
struct OwnerAddressConfusablesTests {
    struct NoProviderTransport: Error {}

    static func provider(signUp: Bool = false, trust: Bool = false) -> SignInProvider {
        SignInProvider(
            name: "corp", kind: .oidc(issuer: "https://sso.example"), clientID: "postern", clientSecret: .init("s"),
            displayName: "Corp", scopes: ["openid", "email"], allowSignUp: signUp, trustEmail: trust)
    }

    /// The owners' side of `/oidc/callback` (no provider configured: the login is handed over verified).
    static func pages(_ harness: OwnersHarness) throws -> OwnerProviderPages {
        let clock = harness.clock
        let flow = try SignInFlow(
            configuration: SignInProvidersConfiguration(), publicURL: "https://example.com/",
            transactions: SignInTransactionStore(database: harness.test.database, clock: { clock.now }),
            transport: { _ in throw NoProviderTransport() }, clock: { clock.now })
        return OwnerProviderPages(service: harness.service, flow: flow, identities: try identities(harness))
    }

    static func identities(_ harness: OwnersHarness) throws -> SignInIdentityStore {
        try #require(harness.service.identities)
    }

    /// What the callback answers a sign-in (not a link) of `subject` with the verified `email`.
    static func callback(
        _ harness: OwnersHarness, subject: String, email: String, provider: SignInProvider
    ) async throws -> HTTPResponse {
        let completed = CompletedSignIn(
            transaction: SignInTransaction(
                provider: provider.name, surface: .owners, account: nil, nonce: "n", codeVerifier: "v", returnTo: "/owner"),
            provider: provider,
            identity: ProviderIdentity(
                issuer: "https://sso.example", subject: subject, email: email, emailVerified: true, name: nil))
        let request = HTTPRequest(
            method: .GET, target: "/oidc/callback?code=c&state=s", version: .http1_1, headers: HTTPHeaders([]), body: [],
            remoteAddress: "192.0.2.9", requestID: "confusables")
        return try await pages(harness).signInCompleted(completed, request, client: "192.0.2.9", clear: "clear=")
    }

    static func linked(_ harness: OwnersHarness, _ subject: String) async throws -> String? {
        try await identities(harness).linkedAccount(surface: .owners, issuer: "https://sso.example", subject: subject)
    }

    @Test(
        "_TRUST_EMAIL: a look-alike of an operator-made owner's address signs in as nobody; the owner's own address in another ASCII case does",
        arguments: StorageBackend.allCases)
    func trustedEmail(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owners = harness.service.owners
        for ascii in Set(AddressLookAlikes.table.map(\.ascii)) {
            _ = try await owners.create(email: ascii, password: "correct horse", approved: true)
        }
        for (index, (spelled, ascii)) in AddressLookAlikes.table.enumerated() {
            #expect(try await owners.linkCandidate(email: spelled) == nil, "\(spelled)")
            let response = try await Self.callback(
                harness, subject: "attacker-\(index)", email: spelled, provider: Self.provider(trust: true))
            #expect(response.status == .forbidden, "\(spelled)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("cannot take"), "\(spelled)")
            #expect(try await Self.linked(harness, "attacker-\(index)") == nil, "\(spelled)")
            #expect(try await owners.linkCandidate(email: ascii)?.emailVerified == true)
        }
        // The owner's own address, in any ASCII case, is theirs: trusted, it links and signs in.
        let kate = try #require(try await owners.linkCandidate(email: "kate@example.org"))
        let response = try await Self.callback(
            harness, subject: "kate-sub", email: "KATE@Example.ORG", provider: Self.provider(trust: true))
        #expect(response.status == .seeOther)
        #expect(try await Self.linked(harness, "kate-sub") == kate.owner.id)
    }

    @Test(
        "_ALLOW_SIGNUP: a look-alike claims no owner and proves nothing; the real holder then signs up, and approving by the ASCII address approves them",
        arguments: StorageBackend.allCases)
    func signUp(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owners = harness.service.owners
        for (index, (spelled, _)) in AddressLookAlikes.table.enumerated() {
            let response = try await Self.callback(
                harness, subject: "claimant-\(index)", email: spelled.replacingOccurrences(of: "@", with: "2@"),
                provider: Self.provider(signUp: true))
            #expect(response.status == .forbidden, "\(spelled)")
            #expect(try await Self.linked(harness, "claimant-\(index)") == nil)
        }
        #expect(try await owners.list().isEmpty)
        // The real holder of kate2@ is not refused, and `owner approve --email kate2@...` approves them.
        let response = try await Self.callback(
            harness, subject: "kate2-sub", email: "kate2@example.org", provider: Self.provider(signUp: true))
        #expect(response.status == .seeOther)
        let made = try #require(try await owners.linkCandidate(email: "kate2@example.org"))
        #expect(made.owner.email == "kate2@example.org" && made.emailVerified)
        #expect(try await Self.linked(harness, "kate2-sub") == made.owner.id)
        let approvals = OwnerApprovals(database: harness.test.database)
        #expect(try await approvals.setApproved(email: "\u{212A}ate2@example.org", true, now: harness.clock.now) == false)
        #expect(try await approvals.setApproved(email: "Kate2@example.org", true, now: harness.clock.now))
        #expect(try await approvals.isApproved(ownerID: made.owner.id))
    }

    @Test(
        "the owners' store keeps a look-alike exact: another owner, never the ASCII one, in sign-in, lookup and approval",
        arguments: StorageBackend.allCases)
    func storeKeepsExact(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owners = harness.service.owners
        let kate = try await owners.create(email: "Kate@Example.org", password: "correct horse")
        #expect(kate.email == "kate@example.org")
        let lookAlike = try await owners.create(email: "\u{212A}ate@example.org", password: "other horse")
        #expect(lookAlike.email == "\u{212A}ate@example.org" && lookAlike.id != kate.id)
        #expect(try await owners.linkCandidate(email: "\u{212A}ATE@EXAMPLE.ORG")?.owner.id == lookAlike.id)
        let ip = ClientAddressKey(peer: "192.0.2.9")
        #expect(try await owners.signIn(email: "KATE@example.org", password: "other horse", client: ip) == .refused)
        #expect(
            try await owners.signIn(email: "\u{212A}ate@Example.org", password: "other horse", client: ip)
                == .signedIn(lookAlike))
        #expect(try await owners.linkCandidate(email: "KATE@example.org")?.owner.id == kate.id)
        #expect(
            try await OwnerApprovals(database: harness.test.database).setApproved(
                email: "kate@example.org", true, now: harness.clock.now))
        #expect(try await owners.owner(id: lookAlike.id)?.approvedAt == nil)
        // A Unicode domain is its A-label.
        let bucher = try await owners.create(email: "ada@B\u{00FC}cher.example", password: "correct horse")
        #expect(bucher.email == "ada@xn--bcher-kva.example")
        #expect(try await owners.linkCandidate(email: "ADA@xn--BCHER-kva.example")?.owner.id == bucher.id)
    }
}
