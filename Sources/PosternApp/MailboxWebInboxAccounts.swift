import Directory
import MailDelivery
import MailSandbox
import MailboxAccounts
import WebInbox

/// The web inbox's Mail.td port over the mailbox surface: its sign-in checks and its accounts, nothing copied.
struct MailboxWebInboxAccounts: WebInboxAccounts {
    let surface: MailboxService
    /// The Pro users' SMTP sandboxes.
    let sandbox: MailSandbox
    /// Every local mailbox (agent inboxes and Mail.td accounts): which one a linked address is.
    let directory: LocalDirectory

    func activeProUserEmail(_ id: String) async throws -> String? {
        try await surface.activeProUserEmail(id)
    }

    func sandboxAddress(proUserID id: String) async throws -> String? {
        try await sandbox.sandboxAddress(proUserID: id)
    }

    func signInAccount(address: String, password: String) async throws -> (id: String, address: String)? {
        try await surface.signInAccount(address: address, password: password)
    }

    func signInProUser(email: String, password: String) async throws -> String? {
        try await surface.signInProUser(email: email, password: password)
    }

    func proToken(apiToken: String) async throws -> (tokenID: String, userID: String)? {
        try await surface.verifyAPIToken(apiToken)
    }

    func proUserID(ofLiveToken tokenID: String) async throws -> String? {
        try await surface.proUserID(ofLiveToken: tokenID)
    }

    func accountTokenEpoch(id: String) async throws -> Int64? {
        try await surface.accountTokenEpoch(id: id)
    }

    func proUserTokenEpoch(id: String) async throws -> Int64? {
        try await surface.proUserTokenEpoch(id: id)
    }

    func accountAddress(id: String) async throws -> String? {
        try await surface.accountAddress(id: id)
    }

    func mailboxBinding(address: String) async throws -> WebInboxSessionBinding? {
        // The SMTP catch-all's copies stay under its reserved address, which no account can take.
        if address.lowercased() == RecipientPolicy.catchAllAddress { return .catchAll }
        guard case .local(let recipient) = try await directory.resolve(address) else { return nil }
        return .account(id: recipient.accountID)
    }

    func accountAddresses(proUserID id: String) async throws -> [String] {
        try await surface.accountAddresses(proUserID: id)
    }
}
