import SignInProviders
import Testing

/// ``ProviderLinking`` is the one rule of every surface (the owners' cases run through OwnersTests'
/// OwnerProviderLinkingTests): here, what the surface brings to it, its accounts' ids and its email spelling.
@Suite("Sign-in providers: the linking rules take the surface's accounts and email rule")
struct ProviderLinkingTests {
    static let provider = SignInProvider(
        name: "corp", kind: .oidc(issuer: "https://sso.example"), clientID: "postern", clientSecret: .init("s"),
        displayName: "Corp", scopes: ["openid", "email"], allowSignUp: true, trustEmail: true,
        allowedDomains: ["example.com"])
    static let identity = ProviderIdentity(
        issuer: "https://sso.example", subject: "42", email: " Ada@Example.com ", emailVerified: true, name: nil)

    static func decide(candidate: ProviderLinking.Candidate?, normalize: (String) -> String?) -> ProviderLinking.Decision
    {
        ProviderLinking.decide(
            identity: identity, provider: provider, linkingFor: nil, linkedTo: nil, candidate: candidate,
            normalize: normalize)
    }

    @Test("the surface's normalizer spells the email signed up with, and refusing the address refuses everything")
    func normalizer() {
        let trimmed: (String) -> String? = { String($0.filter { $0 != " " }).lowercased() }
        #expect(Self.decide(candidate: nil, normalize: trimmed) == .signUp(email: "ada@example.com"))
        #expect(Self.decide(candidate: nil, normalize: { _ in nil }) == .refuse(.emailNotVerified))
        #expect(
            ProviderLinking.verifiedEmail(Self.identity, normalize: trimmed) == "ada@example.com")
    }

    @Test("a candidate's own id and stored email are what the decision names; an unproven one asks its password")
    func candidateAccount() {
        let proven: ProviderLinking.Candidate = (
            account: "pro-7", email: "ada@example.com", emailVerified: true, hasPassword: false)
        #expect(Self.decide(candidate: proven, normalize: { $0 }) == .linkByTrustedEmail(account: "pro-7"))
        var unproven = proven
        unproven.emailVerified = false
        #expect(Self.decide(candidate: unproven, normalize: { $0 }) == .refuse(.accountWithoutPassword))
        unproven.hasPassword = true
        #expect(
            Self.decide(candidate: unproven, normalize: { $0 })
                == .confirmPassword(account: "pro-7", email: "ada@example.com"))
    }

    @Test("a verified email whose local part is not ASCII links, proves and makes nothing: email_not_ascii (issue 66)")
    func nonASCIILocalPart() {
        let kelvin = ProviderIdentity(
            issuer: "https://sso.example", subject: "43", email: "\u{212A}ate@example.com", emailVerified: true, name: nil)
        let proven: ProviderLinking.Candidate = (
            account: "pro-7", email: "kate@example.com", emailVerified: true, hasPassword: true)
        for candidate in [nil, proven] {
            #expect(
                ProviderLinking.decide(
                    identity: kelvin, provider: Self.provider, linkingFor: nil, linkedTo: nil, candidate: candidate,
                    normalize: { $0 }) == .refuse(.emailNotASCII))
        }
        #expect(ProviderLinking.verifiedEmail(kelvin, normalize: { $0 }) == nil)
        // Linking from a signed-in account's settings asks nothing of the email.
        #expect(
            ProviderLinking.decide(
                identity: kelvin, provider: Self.provider, linkingFor: "pro-7", linkedTo: nil, candidate: nil,
                normalize: { $0 }) == .link(account: "pro-7"))
    }
}
