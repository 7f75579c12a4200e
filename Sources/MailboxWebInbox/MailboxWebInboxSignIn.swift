import BrowserPages
import ClientAddress
import Directory
import EmailAddresses
import MailDelivery
import MailSandbox
import MailSignIn
import MailboxAccounts
import WebInbox

/// The web inbox's sign-in port over Mail.td's accounts: their credentials checked, and their backoff keyed, by the one
/// owner of mail credentials (``MailSignIn``, as IMAP and POP3 are), their token epochs and API tokens, and their
/// accounts, nothing copied; the directory says who has a linked address.
public struct MailboxWebInboxSignIn: WebInboxSignIn, WebInboxCaptures {
    let accounts: MailboxAccountService
    /// The one owner of mail credentials: the password and token checks and the backoff's keys.
    let credentialOwner: MailSignIn
    /// The Pro users' SMTP sandboxes.
    let sandbox: MailSandbox
    /// Every local mailbox (agent inboxes and Mail.td accounts): which one a linked address is.
    let directory: LocalDirectory

    /// - Parameters:
    ///   - accounts: Mail.td's accounts: their token epochs, API tokens and accounts.
    ///   - credentials: the one owner of mail credentials, built once by the composition root.
    ///   - sandbox: the Pro users' SMTP sandboxes (their captures are read too).
    ///   - directory: every local mailbox, which says who has a linked address.
    public init(
        accounts: MailboxAccountService, credentials: MailSignIn, sandbox: MailSandbox, directory: LocalDirectory
    ) {
        self.accounts = accounts
        self.credentialOwner = credentials
        self.sandbox = sandbox
        self.directory = directory
    }

    public func signIn(_ credentials: WebInboxCredentials) async throws
        -> (principal: WebInboxPrincipal, binding: WebInboxSessionBinding)?
    {
        switch credentials {
        case .account(let address, let password):
            guard let (id, epoch) = try await credentialOwner.account(address: address, password: password) else { return nil }
            return (.account(id: id), .tokenEpoch(epoch))
        case .proUser(let email, let password):
            guard let (id, epoch) = try await credentialOwner.proUser(email: email, password: password) else { return nil }
            return (.proUser(id: id), .tokenEpoch(epoch))
        case .apiToken(let token):
            guard let (tokenID, userID) = try await credentialOwner.proUser(apiToken: token) else { return nil }
            return (.proUser(id: userID), .apiToken(id: tokenID))
        case .passkey(let id), .provider(let id), .secondFactorSetUp(let id):
            // The session rests on the token epoch, as a password's does: a password reset ends it too.
            guard let (epoch, active) = try await accounts.proUserStanding(id: id), active != nil else { return nil }
            return (.proUser(id: id), .tokenEpoch(epoch))
        }
    }

    public func proUserHasPassword(_ id: String) async throws -> Bool {
        try await accounts.proUserLinkCandidate(id: id)?.hasPassword ?? false
    }

    public func removeProUserPassword(_ id: String, password: String) async throws -> Bool {
        try await accounts.removeProUserPassword(id: id, password: password)
    }

    public func backoffKeys(_ name: WebInboxSignInName, client: ClientAddressKey) -> SignInThrottle.Keys {
        switch name {
        case .account(let address): MailSignIn.accountKeys(address: address, client: client)
        case .proUser(let email): MailSignIn.proUserKeys(email: email, client: client)
        case .apiToken(let token): MailSignIn.apiTokenKeys(token, client: client)
        }
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
            guard let (address, epoch) = try await accounts.accountStanding(id: id), binding == .tokenEpoch(epoch)
            else { return nil }
            return WebInboxAccess(label: address, mailboxes: [address])
        case .proUser(let id):
            let email: String?
            if case .apiToken(let tokenID) = binding {
                guard try await accounts.proUserID(ofLiveToken: tokenID) == id else { return nil }
                email = try await accounts.activeProUserEmail(id)
            } else {
                guard let (epoch, active) = try await accounts.proUserStanding(id: id), binding == .tokenEpoch(epoch)
                else { return nil }
                email = active
            }
            guard let email else { return .nothing }
            let captures = try await sandbox.sandboxAddress(proUserID: id)
            let addresses = try await accounts.accountAddresses(proUserID: id)
            return WebInboxAccess(label: email, mailboxes: addresses + (captures.map { [$0] } ?? []), sandbox: captures)
        case .link(let address):
            guard try await linkBinding(address: address) == binding else { return nil }
            return WebInboxAccess(label: address, mailboxes: [address])
        case .allMail:
            return nil
        }
    }
}
