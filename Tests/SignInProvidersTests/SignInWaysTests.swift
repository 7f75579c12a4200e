import Testing

@testable import SignInProviders

/// The last-way-in rule as both surfaces' "Unlink" asks it (``SignInWays/unlinking(issuer:subject:)``): an identity the
/// account has not linked is refused as not linked, its last way in stays, anything else may go. Pure: no SQL.
@Suite("Sign-in ways: what unlinking an identity comes to")
struct SignInWaysTests {
    static func identity(_ subject: String, provider: String = "corp") -> SignInIdentity {
        SignInIdentity(
            surface: .owners, issuer: "https://idp.example", subject: subject, provider: provider, account: "a",
            email: nil, createdAt: 0, lastUsedAt: nil)
    }

    @Test("not linked, the last way, or allowed with the identity; the password, a passkey or another identity each keep a way in")
    func unlinking() {
        let corp = Self.identity("corp-sub")
        let alone = SignInWays(hasPassword: false, passkeys: [], identities: [corp])
        #expect(alone.unlinking(issuer: "https://idp.example", subject: "corp-sub") == .lastWay)
        #expect(alone.unlinking(issuer: "https://idp.example", subject: "other-sub") == .notLinked)
        // The same subject at another issuer is another identity.
        #expect(alone.unlinking(issuer: "https://other.example", subject: "corp-sub") == .notLinked)
        let others = [
            SignInWays(hasPassword: true, passkeys: [], identities: [corp]),
            SignInWays(hasPassword: false, passkeys: ["pk-1"], identities: [corp]),
            SignInWays(hasPassword: false, passkeys: [], identities: [corp, Self.identity("gh-sub", provider: "gh")]),
        ]
        for ways in others {
            #expect(ways.unlinking(issuer: "https://idp.example", subject: "corp-sub") == .allowed(corp))
        }
        #expect(SignInWays(hasPassword: true, passkeys: [], identities: []).unlinking(
            issuer: "https://idp.example", subject: "corp-sub") == .notLinked)
    }
}
