import MailSandbox
import MailboxAccounts
import WebInbox

/// The web inbox's Mail.td port over the mailbox surface: its sign-in checks and its accounts, nothing copied.
struct MailboxWebInboxAccounts: WebInboxAccounts {
    let surface: MailboxService
    /// The Pro users' SMTP sandboxes.
    let sandbox: MailSandbox

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

    func proUser(apiToken: String) async throws -> String? {
        try await surface.verifyAPIToken(apiToken)?.userID
    }

    func accountAddress(id: String) async throws -> String? {
        try await surface.accountAddress(id: id)
    }

    func accountID(address: String) async throws -> String? {
        try await surface.accountID(address: address)
    }

    func accountAddresses(proUserID id: String) async throws -> [String] {
        try await surface.accountAddresses(proUserID: id)
    }
}
