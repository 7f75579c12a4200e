import CustomDomains
import Directory
import JWT
import PosternTestSupport
import Storage
import Testing

@testable import MailboxAccounts

/// A Mail.td account's mailbox token as a mail API's bearer (JMAP's, issue 72's one store): its own account with
/// `mail.read` only, and nothing for any other bearer or a token that no longer holds.
@Suite("Mailbox tokens as mail API principals")
struct MailboxTokenAuthenticatorTests {
    static func authenticator(_ harness: MailboxHarness, _ directory: (any AccountDirectory)? = nil)
        -> MailboxTokenAuthenticator
    {
        MailboxTokenAuthenticator(
            accounts: harness.service.accounts,
            directory: directory
                ?? MailboxDirectory(
                    database: harness.database, domains: ["mail.localhost", "alt.localhost", "pro.localhost"],
                    claims: CustomDomains(database: harness.database)))
    }

    @Test("A live mailbox token opens its own account, read-only", arguments: StorageBackend.allCases)
    func liveToken(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("jmap-reader@mail.localhost")
        let principal = try #require(
            try await Self.authenticator(harness).principal(for: Credentials(bearerToken: account.token)))
        #expect(principal.accountID == account.id)
        #expect(principal.mailbox.address == "jmap-reader@mail.localhost")
        #expect(principal.mailbox.accountID == account.id)
        #expect(principal.permissions == .read)
        #expect(!principal.impliesAccountID)
    }

    @Test(
        "Every other bearer, and a token after a password reset or the account's deletion, opens nothing",
        arguments: StorageBackend.allCases)
    func otherBearers(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let authenticator = Self.authenticator(harness)
        let pro = try await harness.proToken(email: "jmap-pro@example.com")
        let created = await harness.send(.POST, "/api/user/tokens", json: #"{"name":"ci"}"#, bearer: pro)
        try #require(created.status == 201)
        let account = try await harness.createAccount("jmap-gone@mail.localhost")
        let rsaSigned = try harness.keys.sign(
            MailboxTokenPolicyTests.claims(harness, subject: account.id, purpose: "mailbox", lifetime: 60),
            algorithm: .rs256)
        for bearer in [pro, created.string("token"), rsaSigned, "not-a-token", "a.b.c", ""] {
            #expect(try await authenticator.principal(for: Credentials(bearerToken: bearer)) == nil)
        }

        let reset = await harness.send(
            .PUT, "/api/accounts/\(account.id)/reset-password", json: #"{"password":"newpass1"}"#,
            bearer: account.token)
        try #require(reset.status == 200)
        #expect(try await authenticator.principal(for: Credentials(bearerToken: account.token)) == nil)

        let other = try await harness.createAccount("jmap-deleted@mail.localhost")
        #expect(try await authenticator.principal(for: Credentials(bearerToken: other.token)) != nil)
        #expect(try await harness.service.accounts.deleteAccount(id: other.id))
        #expect(try await authenticator.principal(for: Credentials(bearerToken: other.token)) == nil)
    }

    @Test(
        "A live token of an account whose address the directory no longer holds local opens nothing",
        arguments: StorageBackend.allCases)
    func notLocal(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("jmap-elsewhere@mail.localhost")
        let nowhere = Self.authenticator(harness, LocalDirectory([]))
        #expect(try await nowhere.principal(for: Credentials(bearerToken: account.token)) == nil)
    }

    @Test("A chain answers with the first kind that finds a principal", arguments: StorageBackend.allCases)
    func chain(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("jmap-chain@mail.localhost")
        let chain = PrincipalAuthenticatorChain([
            Self.authenticator(harness, LocalDirectory([])), Self.authenticator(harness),
        ])
        #expect(try await chain.principal(for: Credentials(bearerToken: account.token))?.accountID == account.id)
        #expect(try await chain.principal(for: Credentials(bearerToken: "not-a-token")) == nil)
    }
}
