import Foundation
import AppPasswords
import MailSignIn
import PosternTestSupport
import Testing

/// App passwords at the one owner of mail credentials (issue 87 item 2): an owner's app password opens the inbox it
/// was made for at its doors only, however it is typed; nowhere else (another door, another name, the OAuth mechanisms,
/// the web inbox's sign-in); its failures count toward the sign-in backoff; revoked or the inbox let go of, it ends the
/// session at its next check and opens nothing at once.
@Suite("Mail credentials: app passwords")
struct MailSignInAppPasswordTests {
    static let client = "192.0.2.9"

    static func mailbox(_ outcome: MailSignIn.Outcome) -> MailSignIn.Mailbox? {
        if case .signedIn(let mailbox) = outcome { mailbox } else { nil }
    }

    static func refused(_ outcome: MailSignIn.Outcome) -> Bool {
        if case .refused = outcome { true } else { false }
    }

    @Test("an owner's app password opens its inbox at its doors only, and nowhere else", arguments: StorageBackend.allCases)
    func doors(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let owner = try await harness.owners.owners.create(email: "ada@example.com", password: "owner-password-1")
        let (inbox, _) = try await harness.ownedInboxes.createInbox(username: "ada-keys", ownerID: owner.id)
        let (other, _) = try await harness.ownedInboxes.createInbox(username: "ada-other", ownerID: owner.id)
        let store = AppPasswordStore(database: harness.test.database, limit: 20)
        let (made, secret) = try await store.create(
            holder: .owner(owner.id), accountID: inbox.accountID, address: inbox.address, name: "mutt",
            doors: [.imap, .submission], now: harness.clock.now)
        let credentials = harness.mailCredentials

        let imap = try #require(Self.mailbox(
            try await credentials.signIn(at: .imap, username: inbox.address, password: secret, client: Self.client)))
        #expect(imap.address == inbox.address && imap.accountID == inbox.accountID && imap.sends)
        let typed = secret.uppercased().replacingOccurrences(of: "-", with: " ")
        #expect(Self.mailbox(
            try await credentials.signIn(at: .submission, username: inbox.address, password: typed, client: Self.client))
            != nil)
        #expect(try await store.list(.owner(owner.id)).first?.lastUsedAt == harness.clock.now)

        #expect(Self.refused(
            try await credentials.signIn(at: .pop3, username: inbox.address, password: secret, client: Self.client)))
        #expect(Self.refused(
            try await credentials.signIn(at: .imap, username: other.address, password: secret, client: Self.client)))
        let bearer = try await credentials.signIn(
            at: .imap, username: inbox.address, accessToken: secret, client: Self.client)
        #expect({ if case .tokenRefused = bearer { true } else { false } }())
        // The web inbox's sign-in (a Mail.td address and password) takes none.
        let web = try await harness.browser().signIn(["kind": "account", "address": inbox.address, "password": secret])
        #expect(web.status == .unauthorized)

        // Revoked: the session ends at its next check, and nothing opens from now on.
        #expect(try await imap.standing() == nil)
        #expect(try await store.revoke(id: made.id, holder: .owner(owner.id)))
        #expect(try await imap.standing() == .credentialRevoked)
        #expect(Self.refused(
            try await credentials.signIn(at: .imap, username: inbox.address, password: secret, client: "198.51.100.1")))
    }

    @Test("let go of, the inbox opens no more with it; wrong doors count toward the backoff", arguments: StorageBackend.allCases)
    func holdingAndBackoff(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let owner = try await harness.owners.owners.create(email: "bob@example.com", password: "owner-password-1")
        let (inbox, _) = try await harness.ownedInboxes.createInbox(username: "bob-keys", ownerID: owner.id)
        let store = AppPasswordStore(database: harness.test.database, limit: 20)
        let (_, secret) = try await store.create(
            holder: .owner(owner.id), accountID: inbox.accountID, address: inbox.address, name: "pop",
            doors: .pop3, now: harness.clock.now)
        let credentials = harness.mailCredentials
        let pop = try #require(Self.mailbox(
            try await credentials.signIn(at: .pop3, username: inbox.address, password: secret, client: Self.client)))
        #expect(!pop.sends)

        // Six refusals at a door it was not made for: the seventh attempt, even at its door, is slowed.
        for _ in 0..<6 {
            #expect(Self.refused(
                try await credentials.signIn(at: .imap, username: inbox.address, password: secret, client: Self.client)))
        }
        let slowed = try await credentials.signIn(at: .pop3, username: inbox.address, password: secret, client: Self.client)
        #expect({ if case .throttled = slowed { true } else { false } }())

        _ = try await harness.ownedInboxes.unlink(accountID: inbox.accountID, ownerID: owner.id)
        #expect(try await pop.standing() == .credentialRevoked)
        #expect(Self.refused(
            try await credentials.signIn(at: .pop3, username: inbox.address, password: secret, client: "198.51.100.2")))
    }
}
