import HTTP1
import PosternTestSupport
import SignInMethods
import Storage
import TOTP
import Testing

@testable import Owners

/// The second factor on the sign-in family's doors (issue 88 item 3): with `required-except-passkeys` a provider's
/// sign-in opens no session but sends the browser to the second step (which records `otp fed mfa`), and the controller
/// is told so (``SignInSession/opened``) so that it neither counts nor records a sign-in yet; a passkey's sign-in
/// opens its session at once (`hwk`).
@Suite("Owners: a provider's sign-in asks for the second factor when the policy says so; a passkey's never")
struct OwnerSecondStepFamilyTests {
    /// Under `policy` (one that requires the factor), the owner's password sign-in sets it up first, then opens a
    /// session; the harness, the factor's secret, the owner, the family and a request for it.
    static func enrolled(_ policy: SecondFactorPolicy) async throws
        -> (harness: OwnersHarness, secret: [UInt8], ada: Owner, family: OwnerSignInFamily, request: HTTPRequest)
    {
        let harness = try await OwnerTwoStepTests.harness(.sqlite, policy: policy)
        let csrf = try await OwnerTwoStepTests.firstStep(harness)
        let secret = try OwnerTwoStepTests.secret(in: await harness.send(.GET, "/owner/sign-in/second-step"))
        #expect(
            await OwnerTwoStepTests.secondStep(harness, csrf, OwnerTwoStepTests.code(secret, harness)).status == .ok)
        let ada = try #require(try await harness.service.owners.list().first)
        let request = HTTPRequest(
            method: .GET, target: "/oidc/callback", version: .http1_1, headers: HTTPHeaders(), body: [],
            remoteAddress: "192.0.2.9", requestID: "t")
        return (harness, secret, ada, OwnerSignInFamily(service: harness.service), request)
    }

    @Test("required-except-passkeys: provider → second step → otp fed mfa; passkey → session, hwk")
    func providerAndPasskey() async throws {
        let (harness, secret, ada, family, request) = try await Self.enrolled(.requiredExceptPasskeys)

        let viaProvider = try #require(
            try await family.startSession(
                ada.id, request, by: .provider(OwnerProviderLinkingTests.provider(), returnTo: "/owner/domains"),
                setCookies: []))
        #expect(!viaProvider.opened)
        #expect(viaProvider.response.headers["Location"] == "/owner/sign-in/second-step")
        let pending = try #require(
            viaProvider.response.headers.values("Set-Cookie").first { $0.hasPrefix("postern_second_step=") })
        harness.cookies[OwnerBrowser.sessionCookie] = nil
        harness.cookies["postern_second_step"] = String(pending.split(separator: ";")[0].dropFirst(20))
        harness.clock.advance(30)
        let page = await harness.send(.GET, "/owner/sign-in/second-step")
        let token = try #require(OwnersHarness.csrf(in: page))
        let done = await OwnerTwoStepTests.secondStep(harness, token, OwnerTwoStepTests.code(secret, harness))
        #expect(done.status == .seeOther && done.headers["Location"] == "/owner/domains")
        let session = try #require(harness.cookies[OwnerBrowser.sessionCookie])
        #expect(try await harness.service.browser.sessions.methods(token: session)?.amr == ["otp", "fed", "mfa"])

        let viaPasskey = try #require(try await family.startSession(ada.id, request, by: .passkey, setCookies: []))
        #expect(viaPasskey.opened)
        let cookie = try #require(
            viaPasskey.response.headers.values("Set-Cookie").first { $0.hasPrefix("postern_owner=") })
        let passkeySession = String(cookie.split(separator: ";")[0].dropFirst("postern_owner=".count))
        #expect(try await harness.service.browser.sessions.methods(token: passkeySession)?.amr == ["hwk"])
    }

    @Test("required-for-passwords: a provider's link proven by the password asks for the code; the provider alone does not")
    func providerLinkByPassword() async throws {
        let (harness, _, ada, family, request) = try await Self.enrolled(.requiredForPasswords)
        defer { withExtendedLifetime(harness) {} }  // its database stays open
        let provider = OwnerProviderLinkingTests.provider()
        let byPassword = try #require(
            try await family.startSession(
                ada.id, request, by: .provider(provider, returnTo: "/owner/domains", password: true), setCookies: []))
        #expect(!byPassword.opened && byPassword.response.headers["Location"] == "/owner/sign-in/second-step")
        let alone = try #require(
            try await family.startSession(ada.id, request, by: .provider(provider, returnTo: "/owner/domains"), setCookies: []))
        #expect(alone.opened)
    }
}
