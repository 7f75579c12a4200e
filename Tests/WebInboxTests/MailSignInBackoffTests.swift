import MailSignIn
import PosternTestSupport
import Testing

/// The one owner of mail credentials (issue 82) keys the backoff of a Mail.td password for every door that takes it:
/// wrong passwords at IMAP slow the web inbox's sign-in of the same address from the same client, and wrong passwords
/// at the web inbox slow IMAP, so neither door is a way around the other's backoff. The backoff's first five failures
/// from a client are free: the sixth blocks the next attempt.
@Suite("Mail credentials: one backoff for every door")
struct MailSignInBackoffTests {
    static let address = "ada@mail.localhost", password = "secret-1"
    /// The web inbox harness's browsers come from this address.
    static let client = "192.0.2.9"

    @Test("wrong passwords at IMAP slow the web inbox's sign-in; a right one there is then refused with 429",
        arguments: StorageBackend.allCases)
    func imapSlowsWebInbox(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account(Self.address, password: Self.password)
        var outcomes: [MailSignIn.Outcome] = []
        for _ in 0..<7 {
            outcomes.append(
                try await harness.mailCredentials.signIn(
                    at: .imap, username: Self.address, password: "wrong-password", client: Self.client))
        }
        #expect(outcomes.prefix(6).allSatisfy { if case .refused = $0 { true } else { false } })
        #expect({ if case .throttled = outcomes[6] { true } else { false } }())
        let answer = try await harness.browser().signIn(["kind": "account", "address": Self.address, "password": Self.password])
        #expect(answer.status == .tooManyRequests)
        // Another client is not slowed by this one's failures.
        let elsewhere = try await harness.mailCredentials.signIn(
            at: .pop3, username: Self.address, password: Self.password, client: "198.51.100.7")
        #expect({ if case .signedIn(let mailbox) = elsewhere { mailbox.address == Self.address } else { false } }())
    }

    @Test("wrong passwords at the web inbox slow IMAP's sign-in of the address", arguments: StorageBackend.allCases)
    func webInboxSlowsIMAP(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account(Self.address, password: Self.password)
        let browser = harness.browser()
        for _ in 0..<6 {
            let refused = try await browser.signIn(["kind": "account", "address": Self.address, "password": "wrong-one"])
            #expect(refused.status == .unauthorized)
        }
        let outcome = try await harness.mailCredentials.signIn(
            at: .imap, username: Self.address, password: Self.password, client: Self.client)
        #expect({ if case .throttled = outcome { true } else { false } }())
    }

    @Test("the submission door counts toward the same backoff, and signs a Mail.td account in as one that sends nothing",
        arguments: StorageBackend.allCases)
    func submissionSharesTheBackoff(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        try await harness.account(Self.address, password: Self.password)
        let signedIn = try await harness.mailCredentials.signIn(
            at: .submission, username: Self.address, password: Self.password, client: Self.client)
        let opened: MailSignIn.Mailbox? = if case .signedIn(let mailbox) = signedIn { mailbox } else { nil }
        let mailbox = try #require(opened, "the account's password opens its mailbox at the submission door")
        #expect(mailbox.address == Self.address && !mailbox.sends)
        for _ in 0..<6 {
            let refused = try await harness.mailCredentials.signIn(
                at: .submission, username: Self.address, password: "wrong-password", client: Self.client)
            #expect({ if case .refused = refused { true } else { false } }())
        }
        let imap = try await harness.mailCredentials.signIn(
            at: .imap, username: Self.address, password: Self.password, client: Self.client)
        #expect({ if case .throttled = imap { true } else { false } }())
    }
}
