import HTTP1
import Passkeys
import PosternTestSupport
import ServerKit
import Storage
import Testing
import WebAuthn

@testable import WebInbox

/// A stolen session adds no lasting way in (issue 66 item 4), the Pro users' side: a passkey is added and a provider
/// linked only on a session a sign-in (password, passkey, provider, `tm_pro_` token) opened within the last five
/// minutes; an older session signs in again first.
@Suite("Web inbox: adding a passkey or linking a provider needs a recent sign-in")
struct WebInboxFreshProofTests {
    /// Five minutes and a second: past the proof's window.
    static let stale: Int64 = 5 * 60 + 1
    static let proofWords = "needs a recent sign-in"

    static func link(_ browser: Browser) async throws -> HTTPResponse {
        let csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/dashboard")))
        return await browser.send(.POST, "/inbox/sign-in-methods/link", form: ["csrf_token": csrf, "provider": "corp"])
    }

    @Test(
        "a Pro session opened more than five minutes ago adds no passkey and links no provider; signed in again, it does both",
        arguments: StorageBackend.allCases)
    func freshProof(_ backend: StorageBackend) async throws {
        let discovery = DiscoveryOnlyProvider(
            issuer: WebInboxProviderTests.issuer, endSession: WebInboxProviderTests.issuer + "/logout")
        let harness = try WebInboxHarness(
            backend, relyingParty: WebInboxPasskeyTests.party, provider: WebInboxProviderTests.provider(),
            transport: discovery)
        let (adaID, _) = try await harness.proLogin("ada@example.com")
        let store = PasskeyStore(database: harness.test.database)
        let ceremonies = try #require(harness.signInMethods.controller.ceremonies)
        let stale = try await WebInboxPasskeyTests.proBrowser(harness, "ada@example.com")
        harness.clock.advance(Self.stale)

        // The session alone (as a thief holding its cookie has it): no options, no passkey, no link.
        let csrf = try #require(Browser.csrf(in: await stale.send(.GET, "/inbox/dashboard")))
        let options = await stale.send(.POST, "/inbox/passkeys/options", form: ["csrf_token": csrf])
        #expect(options.status == .forbidden && options.text.contains("proof_needed"))
        let challenge = try WebInboxPasskeyTests.challenge(
            HTTPResponse.noStoreJSON(
                .ok,
                try await ceremonies.registrationOptions(
                    for: .proUser(adaID), name: "ada@example.com", now: harness.clock.now)))
        let added = await stale.send(
            .POST, "/inbox/passkeys",
            form: [
                "csrf_token": csrf, "name": "Thief",
                "credential": WebInboxPasskeyTests.registration(try SoftwareAuthenticator(), challenge: challenge),
            ])
        #expect(added.status == .seeOther && added.headers["Location"] == "/inbox/dashboard")
        #expect((await stale.send(.GET, "/inbox/dashboard")).text.contains(Self.proofWords))
        #expect(try await store.credentials(of: .proUser(adaID)).isEmpty)
        let refusedLink = try await Self.link(stale)
        #expect(refusedLink.status == .seeOther && refusedLink.headers["Location"] == "/inbox/dashboard")
        #expect((await stale.send(.GET, "/inbox/dashboard")).text.contains(Self.proofWords))

        // Signed in again with the password: the passkey is added, the link begins at the provider.
        let fresh = try await WebInboxPasskeyTests.proBrowser(harness, "ada@example.com")
        let dashboard = try await WebInboxPasskeyTests.register(fresh, try SoftwareAuthenticator())
        #expect(dashboard.text.contains("Passkey added."))
        #expect(try await store.credentials(of: .proUser(adaID)).count == 1)
        let link = try await Self.link(fresh)
        #expect(link.status == .ok && link.text.contains(WebInboxProviderTests.issuer + "/authorize?"))
    }
}
