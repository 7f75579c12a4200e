import HTTP1
import Owners
import Passkeys
import PosternTestSupport
import ServerKit
import SignInProviders
import Storage
import Testing
import WebAuthn

/// A stolen session adds no lasting way in (issue 66 item 4): an owner adds a passkey and links a provider only on a
/// session a sign-in (password, passkey or provider) opened within the last five minutes; an older session signs in
/// again first.
@Suite("Owners: adding a passkey or linking a provider needs a recent sign-in")
struct OwnerFreshProofTests {
    /// Five minutes and a second: past the proof's window.
    static let stale: Int64 = 5 * 60 + 1

    /// The passkey harness with a GitHub provider for owners routed (its start needs no discovery).
    static func harness(_ backend: StorageBackend) async throws -> OwnersHarness {
        let harness = try await OwnerPasskeyTests.harness(backend)
        let clock = harness.clock
        var providers = SignInProvidersConfiguration()
        providers.providers = [
            SignInProvider(
                name: "gh", kind: .github(webURL: "https://github.example", apiURL: "https://api.github.example"),
                clientID: "postern", clientSecret: .init("s"), displayName: "GitHub", scopes: ["read:user"],
                surfaces: [.owners])
        ]
        let flow = SignInFlow(
            configuration: providers, publicURL: "https://example.com/",
            transactions: SignInTransactionStore(database: harness.test.database, clock: { clock.now }),
            transport: { _ in UnreachableProvider() }, clock: { clock.now })
        OwnerProviderPages(
            service: harness.service, flow: flow,
            identities: SignInIdentityStore(database: harness.test.database, clock: { clock.now })
        ).register(into: &harness.router)
        return harness
    }

    static func link(_ harness: OwnersHarness) async throws -> HTTPResponse {
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        return await harness.send(
            .POST, "/oidc/start",
            form: ["csrf_token": csrf, "provider": "gh", "surface": "owners", "intent": "link", "next": "/owner"])
    }

    @Test(
        "a session opened more than five minutes ago adds no passkey and links no provider; signed in again, it does both",
        arguments: StorageBackend.allCases)
    func freshProof(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let ada = try #require(try await harness.service.owners.list().first { $0.email == "ada@example.com" })
        let store = try #require(harness.service.passkeyStore)
        let ceremonies = try #require(harness.service.passkeys)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        harness.clock.advance(Self.stale)

        // The session alone (as a thief holding its cookie has it): no options, no passkey, no link.
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        let options = await harness.send(.POST, "/owner/passkeys/options", form: ["csrf_token": csrf])
        #expect(options.status == .forbidden && OwnerPasskeyTests.text(options).contains("proof_needed"))
        let thief = try SoftwareAuthenticator()
        let challenge = try OwnerPasskeyTests.challenge(
            HTTPResponse.noStoreJSON(
                .ok,
                try await ceremonies.registrationOptions(
                    for: .owner(ada.id), name: ada.email, now: harness.clock.now)))
        let added = await harness.send(
            .POST, "/owner/passkeys",
            form: [
                "csrf_token": csrf, "name": "Thief",
                "credential": OwnerPasskeyTests.registration(thief, challenge: challenge),
            ])
        #expect(added.status == .seeOther && added.headers["Location"] == "/owner")
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "signin.proof_needed")
        #expect(try await store.credentials(of: .owner(ada.id)).isEmpty)
        let refusedLink = try await Self.link(harness)
        #expect(refusedLink.status == .forbidden)
        #expect(OwnerPasskeyTests.text(refusedLink).contains("needs a recent sign-in"))
        #expect(
            try await OwnerPasskeyTests.events(harness).contains {
                $0.action == .signInLinkRefused && $0.ownerID == ada.id && $0.details?.contains("proof_needed") == true
            })

        // Signed in again: the passkey is added, the link begins at the provider.
        try await OwnerPasskeyTests.signOut(harness)
        let owner = try SoftwareAuthenticator()
        try await OwnerPasskeyTests.register(harness, "ada@example.com", owner)
        #expect(try await store.credentials(of: .owner(ada.id)).count == 1)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        let link = try await Self.link(harness)
        #expect(link.status == .ok && OwnerPasskeyTests.text(link).contains("https://github.example/login/oauth/authorize?"))
        // Four minutes on, the same session still adds one.
        harness.clock.advance(4 * 60)
        #expect(try await Self.link(harness).status == .ok)
    }
}
