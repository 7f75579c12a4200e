import Directory
import EmailAddresses
import MailDelivery
import MailSandbox
import MailboxAccounts
import WebInbox

/// The web inbox's sign-in port over the mailbox surface: its sign-in checks (`POST /api/token`'s and
/// `POST /api/user/login`'s), its token epochs and API tokens, and its accounts, nothing copied; the directory says who
/// has a linked address.
public struct MailboxWebInboxSignIn: WebInboxSignIn, WebInboxCaptures {
    let surface: MailboxService
    /// The Pro users' SMTP sandboxes.
    let sandbox: MailSandbox
    /// Every local mailbox (agent inboxes and Mail.td accounts): which one a linked address is.
    let directory: LocalDirectory

    /// - Parameters:
    ///   - surface: the Mail.td surface: its sign-in checks, token epochs, API tokens and accounts.
    ///   - sandbox: the Pro users' SMTP sandboxes (their captures are read too).
    ///   - directory: every local mailbox, which says who has a linked address.
    public init(surface: MailboxService, sandbox: MailSandbox, directory: LocalDirectory) {
        self.surface = surface
        self.sandbox = sandbox
        self.directory = directory
    }

    public func signIn(_ credentials: WebInboxCredentials) async throws
        -> (principal: WebInboxPrincipal, binding: WebInboxSessionBinding)?
    {
        switch credentials {
        case .account(let address, let password):
            guard let (id, _) = try await surface.signInAccount(address: address, password: password),
                let (_, epoch) = try await surface.accountStanding(id: id)
            else { return nil }
            return (.account(id: id), .tokenEpoch(epoch))
        case .proUser(let email, let password):
            guard let id = try await surface.signInProUser(email: email, password: password),
                let (epoch, _) = try await surface.proUserStanding(id: id)
            else { return nil }
            return (.proUser(id: id), .tokenEpoch(epoch))
        case .apiToken(let token):
            guard let (tokenID, userID) = try await surface.verifyAPIToken(token) else { return nil }
            return (.proUser(id: userID), .apiToken(id: tokenID))
        case .passkey(let id), .provider(let id):
            // The session rests on the token epoch, as a password's does: a password reset ends it too.
            guard let (epoch, active) = try await surface.proUserStanding(id: id), active != nil else { return nil }
            return (.proUser(id: id), .tokenEpoch(epoch))
        }
    }

    public func proUserHasPassword(_ id: String) async throws -> Bool {
        try await surface.proUserLinkCandidate(id: id)?.hasPassword ?? false
    }

    public func removeProUserPassword(_ id: String, password: String) async throws -> Bool {
        try await surface.removeProUserPassword(id: id, password: password)
    }

    public func linkBinding(address: String) async throws -> WebInboxSessionBinding? {
        // The SMTP catch-all's copies stay under its reserved address, which no account can take.
        if EmailAddress.same(address, RecipientPolicy.catchAllAddress) { return .catchAll }
        guard case .local(let recipient) = try await directory.resolve(address) else { return nil }
        return .account(id: recipient.accountID)
    }

    public func access(_ principal: WebInboxPrincipal, resting binding: WebInboxSessionBinding) async throws
        -> WebInboxAccess?
    {
        switch principal {
        case .account(let id):
            guard let (address, epoch) = try await surface.accountStanding(id: id), binding == .tokenEpoch(epoch)
            else { return nil }
            return WebInboxAccess(label: address, mailboxes: [address])
        case .proUser(let id):
            let email: String?
            if case .apiToken(let tokenID) = binding {
                guard try await surface.proUserID(ofLiveToken: tokenID) == id else { return nil }
                email = try await surface.activeProUserEmail(id)
            } else {
                guard let (epoch, active) = try await surface.proUserStanding(id: id), binding == .tokenEpoch(epoch)
                else { return nil }
                email = active
            }
            guard let email else { return .nothing }
            let captures = try await sandbox.sandboxAddress(proUserID: id)
            let accounts = try await surface.accountAddresses(proUserID: id)
            return WebInboxAccess(label: email, mailboxes: accounts + (captures.map { [$0] } ?? []), sandbox: captures)
        case .link(let address):
            guard try await linkBinding(address: address) == binding else { return nil }
            return WebInboxAccess(label: address, mailboxes: [address])
        case .allMail:
            return nil
        }
    }
}
