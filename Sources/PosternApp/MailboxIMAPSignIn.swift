import AgentAuth
import Audit
import BrowserPages
import ClientAddress
import Directory
import EmailAddresses
import IMAPServer
import MailboxAccounts
import WebInbox

/// IMAP's sign-in port over the surfaces that hold the credentials, each checked by its own door's authenticator:
/// an agent inbox's address with its API key (as JMAP and MCP check it, by its digest; the name must be the key's
/// inbox); a Mail.td account's address with its password (`POST /api/token`'s very check, the same cost whether the
/// address exists or not) or with a `tm_pro_` API token of the Pro user who owns it (the Mail.td routes' bearer
/// check); an owner's inbox with an OAuth access token (JMAP's and MCP's verifier: issuer, the `/jmap` or inbox-bound
/// audience, a live grant, `mail.read`), by `AUTHENTICATE OAUTHBEARER`/`XOAUTH2` or as `LOGIN`'s password. Passwords,
/// Pro tokens and access tokens go through the web inbox's sign-in backoff on the same keys (a failure at either door
/// slows both). Each sign-in and refusal is on the audit trail, naming the door (IMAP or POP3, which share this port);
/// the directory gives the mailbox's quota.
struct MailboxIMAPSignIn: IMAPSignIn {
    /// The protocol signed in to, as the audit trail's details name it.
    enum Door: String {
        case imap, pop3
    }

    let door: Door
    let surface: MailboxService
    let agents: AgentAPIKeyAuthenticator
    /// Owners' access tokens: the verifier and the owners' inboxes JMAP and MCP use.
    let owners: OwnerAccess
    let directory: LocalDirectory
    let throttle: SignInThrottle
    let audit: AuditTrail
    let clock: @Sendable () -> Int64

    func signIn(username: String, password: String, client: String) async throws -> IMAPSignInOutcome {
        if password.hasPrefix(AgentAPIKey.prefix) { return try await agentSignIn(username, key: password, client: client) }
        if BearerAuthenticator.isAccessToken(password) {
            return try await signIn(username: username, accessToken: password, client: client)
        }
        let keys = WebInboxService.accountKeys(address: username, client: ClientAddressKey(peer: client))
        var opened: (id: String, address: String)?
        let attempt = try await throttle.attempt(keys, now: clock()) {
            opened =
                try await password.hasPrefix(MailboxService.apiTokenPrefix)
                ? surface.signInAccount(address: username, apiToken: password)
                : surface.signInAccount(address: username, password: password)
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

    func signIn(username: String?, accessToken: String, client: String) async throws -> IMAPSignInOutcome {
        let name = username ?? ""
        let keys = WebInboxService.accountKeys(address: name, client: ClientAddressKey(peer: client))
        var outcome = IMAPSignInOutcome.tokenRefused(.invalidToken)
        var owner: String?
        let attempt = try await throttle.attempt(keys, now: clock()) {
            (outcome, owner) = try await ownerInbox(username, accessToken: accessToken)
            return owner != nil
        }
        guard case .passed = attempt, let owner, case .signedIn(let holder) = outcome else {
            await record(.mailboxSignInFailed, actor: name, client: client, credential: "oauth")
            if case .slowed = attempt { return .throttled }
            return outcome
        }
        await record(.mailboxSignIn, actor: owner, target: holder.address, client: client, credential: "oauth")
        return outcome
    }

    /// The owner's inbox `username` names (else the grant's default, or the only one) that `token` opens, and the
    /// owner's id; a refusal and nil otherwise.
    private func ownerInbox(_ username: String?, accessToken token: String) async throws
        -> (IMAPSignInOutcome, String?)
    {
        let principal: Principal
        let grant: AccessGrant
        do {
            grant = try await owners.verifier.grant(for: token, resources: [.jmap, .anyAgent])
            guard grant.permissions.contains(.read) else { return (.tokenRefused(.insufficientScope), nil) }
            guard case .inbox(let chosen) = try await owners.principals.choose(grant, agent: username) else {
                return (.tokenRefused(.invalidToken), nil)
            }
            principal = chosen
        } catch is AuthenticationRefusal {
            return (.tokenRefused(.invalidToken), nil)
        }
        let holder = IMAPMailboxHolder(address: principal.mailbox.address, quota: principal.mailbox.quota)
        return (.signedIn(holder), grant.ownerID)
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

    private func record(
        _ action: AuditAction, actor: String, target: String? = nil, client: String, credential: String? = nil
    ) async {
        let details =
            credential.map { #"{"door":"\#(door.rawValue)","credential":"\#($0)"}"# }
            ?? #"{"door":"\#(door.rawValue)"}"#
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .mailbox, actorID: actor, ownerID: nil, action: action, target: target ?? actor,
                clientAddress: client, details: details)
        }
    }
}
