import HTTP1
import Owners
import PosternTestSupport
import ServerKit
import SignInProviders
import Storage
import Testing
import WebAuthn

/// The one last-way-in rule over an owner's password, passkeys (issue 56) and linked providers (issue 54): every way
/// counts wherever a way is taken away (unlinking a provider, removing a passkey, removing the password), so a change
/// that leaves another way in is done and the one that would leave none is refused with `signin.last_way`.
@Suite("Owners: the last way to sign in counts the password, passkeys and linked providers")
struct OwnerSignInWaysTests {
    struct NoProviderTransport: Error {}

    /// The passkey harness with the provider pages routed (no provider is configured: linking is done in the store,
    /// unlinking needs none) and Ada's identity at "corp" linked.
    static func harness(_ backend: StorageBackend) async throws -> (OwnersHarness, adaID: String) {
        let harness = try await OwnerPasskeyTests.harness(backend)
        let clock = harness.clock
        let flow = try SignInFlow(
            configuration: SignInProvidersConfiguration(), publicURL: "https://example.com/",
            transactions: SignInTransactionStore(database: harness.test.database, clock: { clock.now }),
            transport: { _ in throw NoProviderTransport() }, clock: { clock.now })
        OwnerProviderPages(service: harness.service, flow: flow, identities: try Self.identities(harness))
            .register(into: &harness.router)
        let ada = try #require(try await harness.service.owners.list().first { $0.email == "ada@example.com" })
        #expect(
            try await Self.identities(harness).link(
                surface: .owners, issuer: "https://sso.example", subject: "ada-sub", provider: "corp", account: ada.id,
                email: "ada@example.com") == .linked)
        return (harness, ada.id)
    }

    static func identities(_ harness: OwnersHarness) throws -> SignInIdentityStore {
        try #require(harness.service.identities)
    }

    static func unlink(_ harness: OwnersHarness) async throws -> HTTPResponse {
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        return await harness.send(
            .POST, "/owner/sign-in-methods/unlink",
            form: ["csrf_token": csrf, "provider": "corp", "issuer": "https://sso.example", "subject": "ada-sub"])
    }

    static func relink(_ harness: OwnersHarness, _ adaID: String) async throws {
        #expect(
            try await Self.identities(harness).link(
                surface: .owners, issuer: "https://sso.example", subject: "ada-sub", provider: "corp", account: adaID,
                email: nil) == .linked)
    }

    @Test(
        "a provider is a way in: the password goes with only a provider left; a passkey and a provider each go while the other stays; the provider alone stays",
        arguments: StorageBackend.allCases)
    func combinedRule(_ backend: StorageBackend) async throws {
        let (harness, adaID) = try await Self.harness(backend)
        let identities = try Self.identities(harness)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        var page = OwnerPasskeyTests.text(await harness.send(.GET, "/owner"))
        // One section shows all three parts, and the password may go: the provider is left.
        #expect(page.components(separatedBy: #"id="sign-in-methods""#).count == 2)
        #expect(page.contains("Password: set") && page.contains(#"id="identity-corp""#))
        #expect(page.contains(#"id="no-passkeys""#) && page.contains(#"id="remove-password""#))
        var csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        _ = await harness.send(.POST, "/owner/password/remove", form: ["csrf_token": csrf, "password": "correct horse"])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "password.removed")
        #expect(try await !harness.service.owners.hasPassword(ownerID: adaID))

        // Only the provider is left: unlinking it is refused, and it stays.
        #expect(try await Self.unlink(harness).status == .seeOther)
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "signin.last_way")
        page = OwnerPasskeyTests.text(await harness.send(.GET, "/owner"))
        #expect(page.contains("your only way to sign in") && page.contains("Password: none"))
        #expect(try await identities.identities(surface: .owners, account: adaID).count == 1)

        // A passkey (registered while the password is back) and the provider: either may go while the other stays.
        #expect(try await harness.service.owners.setPassword(email: "ada@example.com", password: "correct horse"))
        try await OwnerPasskeyTests.register(harness, "ada@example.com", try SoftwareAuthenticator())
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        _ = await harness.send(.POST, "/owner/password/remove", form: ["csrf_token": csrf, "password": "correct horse"])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "password.removed")
        #expect(try await Self.unlink(harness).status == .seeOther)
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "signin.unlinked")
        #expect(try await identities.identities(surface: .owners, account: adaID).isEmpty)

        try await Self.relink(harness, adaID)
        let passkey = try #require(try await harness.passkeys.credentials(of: .owner(adaID)).first)
        csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        _ = await harness.send(.POST, "/owner/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "passkey.removed")
        #expect(try await harness.passkeys.credentials(of: .owner(adaID)).isEmpty)

        // The provider alone again: it stays.
        #expect(try await Self.unlink(harness).status == .seeOther)
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "signin.last_way")
        #expect(try await identities.identities(surface: .owners, account: adaID).count == 1)
    }

    @Test("with a passkey and no password, the provider may go but the last passkey then stays", arguments: StorageBackend.allCases)
    func passkeyAfterProvider(_ backend: StorageBackend) async throws {
        let (harness, adaID) = try await Self.harness(backend)
        try await OwnerPasskeyTests.register(harness, "ada@example.com", try SoftwareAuthenticator())
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        _ = await harness.send(.POST, "/owner/password/remove", form: ["csrf_token": csrf, "password": "correct horse"])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "password.removed")
        #expect(try await Self.unlink(harness).status == .seeOther)
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "signin.unlinked")
        let passkey = try #require(try await harness.passkeys.credentials(of: .owner(adaID)).first)
        _ = await harness.send(.POST, "/owner/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "signin.last_way")
        #expect(try await harness.passkeys.credentials(of: .owner(adaID)).count == 1)
    }
}
