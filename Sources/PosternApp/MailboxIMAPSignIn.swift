import AgentAuth
import Audit
import BrowserPages
import ClientAddress
import Directory
import EmailAddresses
import IMAPServer
import MailboxAccounts
import WebInbox

/// IMAP's sign-in port over the surfaces that hold the credentials: an agent inbox's address with its API key (the
/// key checked as JMAP and MCP check it, by its digest; the name must be the key's inbox), or a Mail.td account's
/// address and password, by `POST /api/token`'s very check (the same cost whether the address exists or not), under
/// the web inbox's sign-in backoff on the same keys (a failure at either door slows both). Each sign-in and refusal
/// is on the audit trail, naming the door (IMAP or POP3, which share this port); the directory gives the mailbox's
/// quota.
struct MailboxIMAPSignIn: IMAPSignIn {
    /// The protocol signed in to, as the audit trail's details name it.
    enum Door: String {
        case imap, pop3
    }

    let door: Door
    let surface: MailboxService
    let agents: AgentAPIKeyAuthenticator
    let directory: LocalDirectory
    let throttle: SignInThrottle
    let audit: AuditTrail
    let clock: @Sendable () -> Int64

    func signIn(username: String, password: String, client: String) async throws -> IMAPSignInOutcome {
        if password.hasPrefix(AgentAPIKey.prefix) { return try await agentSignIn(username, key: password, client: client) }
        let keys = WebInboxService.accountKeys(address: username, client: ClientAddressKey(peer: client))
        var opened: (id: String, address: String)?
        let attempt = try await throttle.attempt(keys, now: clock()) {
            opened = try await surface.signInAccount(address: username, password: password)
            return opened != nil
        }
        guard case .passed = attempt, let opened, case .local(let recipient) = try await directory.resolve(opened.address)
        else {
            await record(.mailboxSignInFailed, actor: username, client: client)
            if case .slowed = attempt { return .throttled }
            return .refused
        }
        await record(.mailboxSignIn, actor: opened.id, target: recipient.address, client: client)
        return .signedIn(IMAPMailboxHolder(address: recipient.address, quota: recipient.quota))
    }

    /// An agent inbox's address and API key: the key's live agent, whose inbox the name must be.
    private func agentSignIn(_ username: String, key: String, client: String) async throws -> IMAPSignInOutcome {
        guard let principal = try await agents.principal(for: Credentials(bearerToken: key)),
            EmailAddress.same(principal.mailbox.address, username)
        else {
            await record(.mailboxSignInFailed, actor: username, client: client)
            return .refused
        }
        await record(.mailboxSignIn, actor: principal.accountID, target: principal.mailbox.address, client: client)
        return .signedIn(IMAPMailboxHolder(address: principal.mailbox.address, quota: principal.mailbox.quota))
    }

    private func record(_ action: AuditAction, actor: String, target: String? = nil, client: String) async {
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .mailbox, actorID: actor, ownerID: nil, action: action, target: target ?? actor,
                clientAddress: client, details: #"{"door":"\#(door.rawValue)"}"#)
        }
    }
}
