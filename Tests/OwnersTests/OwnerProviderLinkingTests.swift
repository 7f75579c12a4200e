import AuthCrypto
import BrowserPages
import ClientAddress
import PosternTestSupport
import SignInProviders
import Storage
import Testing

@testable import Owners

@Suite("Owners: what a provider's identity may do (issue 54 item 4)")
struct OwnerProviderLinkingTests {
    static func provider(signUp: Bool = false, trust: Bool = false, domains: [String] = []) -> SignInProvider {
        SignInProvider(
            name: "corp", kind: .oidc(issuer: "https://sso.example"), clientID: "postern", clientSecret: .init("s"),
            displayName: "Corp", scopes: ["openid", "email"], allowSignUp: signUp, trustEmail: trust,
            allowedDomains: domains)
    }

    static func identity(_ email: String? = "Ada@Example.com", verified: Bool = true) -> ProviderIdentity {
        ProviderIdentity(issuer: "https://sso.example", subject: "248289761001", email: email, emailVerified: verified, name: nil)
    }

    static func candidate(verified: Bool = true, password: Bool = true) -> OwnerLinkCandidate {
        OwnerLinkCandidate(
            owner: Owner(id: "owner-ada", email: "ada@example.com", createdAt: 0), emailVerified: verified,
            hasPassword: password)
    }

    static func decide(
        _ identity: ProviderIdentity = identity(), _ provider: SignInProvider = provider(), linkingFor: String? = nil,
        linkedTo: String? = nil, candidate: OwnerLinkCandidate? = nil
    ) -> OwnerProviderLinking.Decision {
        OwnerProviderLinking.decide(
            identity: identity, provider: provider, linkingFor: linkingFor, linkedTo: linkedTo, candidate: candidate)
    }

    @Test("a signed-in owner links an unknown identity whatever its email, never one linked to someone else")
    func linkingFromSettings() {
        #expect(Self.decide(Self.identity(nil, verified: false), linkingFor: "me") == .link(account: "me"))
        #expect(Self.decide(linkingFor: "me", linkedTo: "me") == .alreadyLinked)
        #expect(Self.decide(linkingFor: "me", linkedTo: "other") == .refuse(.linkedToAnother))
        #expect(
            Self.decide(linkingFor: "me", linkedTo: "other", candidate: Self.candidate()) == .refuse(.linkedToAnother))
    }

    @Test("a known identity signs into its owner, whatever its email says now")
    func knownIdentity() {
        #expect(Self.decide(linkedTo: "owner-b") == .signIn(account: "owner-b"))
        #expect(Self.decide(Self.identity("x@evil.example", verified: false), linkedTo: "owner-b") == .signIn(account: "owner-b"))
    }

    @Test("an unverified or missing email links nothing and makes nobody, even with sign-up and trust on")
    func unverified() {
        let open = Self.provider(signUp: true, trust: true)
        #expect(Self.decide(Self.identity(verified: false), open, candidate: Self.candidate()) == .refuse(.emailNotVerified))
        #expect(Self.decide(Self.identity(verified: false), open) == .refuse(.emailNotVerified))
        #expect(Self.decide(Self.identity(nil), open) == .refuse(.emailNotVerified))
        #expect(Self.decide(Self.identity("not an address"), open) == .refuse(.emailNotVerified))
    }

    @Test("an owner's email asks for their password: no session, unless trusted into a proven email")
    func preHijack() {
        #expect(
            Self.decide(candidate: Self.candidate()) == .confirmPassword(account: "owner-ada", email: "ada@example.com"))
        #expect(
            Self.decide(Self.identity(), Self.provider(signUp: true), candidate: Self.candidate(verified: false))
                == .confirmPassword(account: "owner-ada", email: "ada@example.com"))
        // _TRUST_EMAIL links only into an email someone proved; an unproven one still asks.
        #expect(
            Self.decide(Self.identity(), Self.provider(trust: true), candidate: Self.candidate())
                == .linkByTrustedEmail(account: "owner-ada"))
        #expect(
            Self.decide(Self.identity(), Self.provider(trust: true), candidate: Self.candidate(verified: false))
                == .confirmPassword(account: "owner-ada", email: "ada@example.com"))
        #expect(Self.decide(candidate: Self.candidate(password: false)) == .refuse(.accountWithoutPassword))
    }

    @Test("sign-up needs _ALLOW_SIGNUP and an allowed domain, and takes the normalized email")
    func signUp() {
        #expect(Self.decide() == .refuse(.signUpClosed))
        #expect(Self.decide(Self.identity(), Self.provider(signUp: true)) == .signUp(email: "ada@example.com"))
        #expect(
            Self.decide(Self.identity(), Self.provider(signUp: true, domains: ["example.com"]))
                == .signUp(email: "ada@example.com"))
        #expect(
            Self.decide(Self.identity(), Self.provider(signUp: true, domains: ["corp.example"]))
                == .refuse(.domainNotAllowed))
        #expect(
            Self.decide(Self.identity("ada@sub.example.com"), Self.provider(signUp: true, domains: ["example.com"]))
                == .refuse(.domainNotAllowed))
    }
}

@Suite("Owners: the pending link sealed in a cookie")
struct OwnerPendingLinkTests {
    static let key = Array(repeating: UInt8(7), count: 32)
    static let purpose = "owner pending link"
    static let link = PendingProviderLink(
        provider: "corp", issuer: "https://sso.example", subject: "248289761001", email: "ada@example.com",
        account: "owner-ada")

    static func open(_ cookie: String, key: [UInt8] = key, purpose: String = purpose, now: Int64) -> PendingProviderLink? {
        PendingProviderLink(cookie: cookie, browserKey: key, purpose: purpose, now: now)
    }

    @Test("it opens with its key before it expires, and not after")
    func roundTrip() throws {
        let sealed = try Self.link.seal(browserKey: Self.key, purpose: Self.purpose, now: 1000)
        #expect(Self.open(sealed, now: 1000) == Self.link)
        #expect(Self.open(sealed, now: 1000 + PendingProviderLink.lifetime - 1) == Self.link)
        #expect(Self.open(sealed, now: 1000 + PendingProviderLink.lifetime) == nil)
    }

    @Test("another key, another surface's purpose, a changed byte or a moved expiry opens nothing")
    func tampered() throws {
        let sealed = try Self.link.seal(browserKey: Self.key, purpose: Self.purpose, now: 1000)
        #expect(Self.open(sealed, key: Array(repeating: 8, count: 32), now: 1000) == nil)
        #expect(Self.open(sealed, purpose: "pro pending link", now: 1000) == nil)
        var raw = try #require(Base64URL.decode(sealed))
        raw[raw.count - 1] ^= 1
        #expect(Self.open(Base64URL.encode(raw), now: 1000) == nil)
        var later = try #require(Base64URL.decode(sealed))
        later[7] &+= 1
        #expect(Self.open(Base64URL.encode(later), now: 1000) == nil)
        #expect(Self.open("not-base64!", now: 1000) == nil)
        #expect(!PendingProviderLink(provider: "corp", issuer: "a\nb", subject: "s", email: "e@x", account: "o").isSealable)
    }
}

@Suite("Owners: password-less owners and proven emails (migration 0051)")
struct OwnerPasswordlessTests {
    static let ip = ClientAddressKey(peer: "192.0.2.9")

    @Test("a provider's owner has no password: the password sign-in refuses them as a wrong password", arguments: StorageBackend.allCases)
    func passwordless(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owners = harness.service.owners
        let owner = try await owners.createWithoutPassword(email: "Ada@Example.com")
        #expect(owner.email == "ada@example.com" && owner.approvedAt == nil)
        #expect(try await owners.signIn(email: "ada@example.com", password: "", client: Self.ip) == .refused)
        #expect(try await owners.signIn(email: "ada@example.com", password: "anything-at-all", client: Self.ip) == .refused)
        let candidate = try #require(try await owners.linkCandidate(email: "ADA@example.com"))
        #expect(candidate == OwnerLinkCandidate(owner: owner, emailVerified: true, hasPassword: false))
        #expect(try await owners.linkCandidate(id: owner.id) == candidate)
        // The one answer "Sign-in methods", `owner show` and the last-way-in rule read (issue 56's removal alike).
        #expect(try await !owners.hasPassword(ownerID: owner.id))
        await #expect(throws: OwnerError.emailTaken) { try await owners.createWithoutPassword(email: "ada@example.com") }
        // The operator may give them a password later; then it signs them in.
        #expect(try await owners.setPassword(email: "ada@example.com", password: "correct horse"))
        #expect(try await owners.signIn(email: "ada@example.com", password: "correct horse", client: Self.ip) == .signedIn(owner))
        #expect(try await owners.linkCandidate(id: owner.id)?.hasPassword == true)
        #expect(try await owners.hasPassword(ownerID: owner.id))
        // removeWithoutPassword removes only an owner without a password.
        #expect(try await owners.removeWithoutPassword(id: owner.id) == false)
        let other = try await owners.createWithoutPassword(email: "bob@example.com")
        #expect(try await owners.removeWithoutPassword(id: other.id))
        #expect(try await owners.owner(id: other.id) == nil)
    }

    @Test("an email is proven by the operator or a provider's verified address, never by sign-up", arguments: StorageBackend.allCases)
    func provenEmail(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owners = harness.service.owners
        let made = try await owners.create(email: "op@example.com", password: "correct horse", approved: true)
        let signedUp = try await owners.create(email: "self@example.com", password: "correct horse")
        #expect(try await owners.linkCandidate(id: made.id)?.emailVerified == true)
        #expect(try await owners.linkCandidate(id: signedUp.id)?.emailVerified == false)
        #expect(try await owners.linkCandidate(id: signedUp.id)?.hasPassword == true)
        // Only for the address the owner still has.
        try await owners.markEmailVerified(id: signedUp.id, email: "other@example.com")
        #expect(try await owners.linkCandidate(id: signedUp.id)?.emailVerified == false)
        try await owners.markEmailVerified(id: signedUp.id, email: "self@example.com")
        #expect(try await owners.linkCandidate(id: signedUp.id)?.emailVerified == true)
        #expect(try await owners.linkCandidate(email: "nobody@example.com") == nil)
        #expect(try await owners.linkCandidate(email: "not an email") == nil)
    }
}
