import AgentAuth
import Audit
import BrowserPages
import ClientAddress
import Directory
import EmailAddresses
import IMAPServer
import MailboxAccounts
import ServerKit
import WebInbox

/// IMAP's sign-in port over the surfaces that hold the credentials, each checked by its own door's authenticator:
/// an agent inbox's address with its API key (as JMAP and MCP check it, by its digest; the name must be the key's
/// inbox); a Mail.td account's address with its password (`POST /api/token`'s very check, the same cost whether the
/// address exists or not) or with a `tm_pro_` API token of the Pro user who owns it (the Mail.td routes' bearer
/// check); an owner's inbox with an OAuth access token (JMAP's and MCP's verifier: issuer, the `/jmap` or inbox-bound
/// audience, a live grant, `mail.read`), by `AUTHENTICATE OAUTHBEARER`/`XOAUTH2` or as `LOGIN`'s password. Passwords,
/// Pro tokens and access tokens go through the web inbox's sign-in backoff on the same keys (a failure at either door
/// slows both). Before any of that, each attempt takes a token from the client address's bucket of `POST
/// /api/token`'s rate (Mail.td's public requests, 8 a second), so that a client that names a new user at each attempt
/// (which no name's backoff slows) costs at most the hashes HTTP would let it; the bucket is IMAP's and POP3's
/// together, and off with `POSTERN_RATE_LIMITS=off`. Each sign-in and refusal is on the audit trail, naming the door
/// (IMAP or POP3, which share this port); the directory gives the mailbox's quota.
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
    /// The per-client buckets of the mail doors' sign-ins; nil when rate limits are off.
    let limiter: RateLimitTable<MailboxRateClass>?
    let audit: AuditTrail
    let clock: @Sendable () -> Int64

    func signIn(username: String, password: String, client: String) async throws -> IMAPSignInOutcome {
        guard admits(client) else { return .throttled }
        if password.hasPrefix(AgentAPIKey.prefix) { return try await agentSignIn(username, key: password, client: client) }
        if BearerAuthenticator.isAccessToken(password) {
            return try await signIn(username: username, accessToken: password, client: client)
        }
        let keys = WebInboxService.accountKeys(address: username, client: ClientAddressKey(peer: client))
        let isAPIToken = password.hasPrefix(MailboxService.apiTokenPrefix)
        var opened: (id: String, address: String)?
        let attempt = try await throttle.attempt(keys, now: clock()) {
            opened =
                try await isAPIToken
                ? surface.signInAccount(address: username, apiToken: password)
                : surface.signInAccount(address: username, password: password)
            return opened != nil
        }
        let found = try await signedInAccount(attempt == .passed ? opened : nil)
        guard let found else {
            await record(.mailboxSignInFailed, actor: username, client: client)
            if case .slowed = attempt { return .throttled }
            return .refused
        }
        let (recipient, account) = found
        await record(.mailboxSignIn, actor: account.id, target: recipient.address, client: client)
        let accounts = surface
        let standing = IMAPStanding {
            // The account by its id, never its address: one made again at the address is another account.
            guard let now = try await accounts.accountStanding(id: account.id),
                EmailAddress.same(now.address, account.address)
            else { return .accountDeleted }
            guard now.tokenEpoch == account.tokenEpoch else { return .credentialChanged }
            guard isAPIToken else { return nil }
            let still = try await accounts.signInAccount(address: account.address, apiToken: password)
            return still?.id == account.id ? nil : .credentialRevoked
        }
        return .signedIn(IMAPMailboxHolder(address: recipient.address, quota: recipient.quota, standing: standing))
    }

    func signIn(username: String?, accessToken: String, client: String) async throws -> IMAPSignInOutcome {
        guard admits(client) else { return .throttled }
        let name = username ?? ""
        let keys = WebInboxService.accountKeys(address: name, client: ClientAddressKey(peer: client))
        var outcome = IMAPSignInOutcome.tokenRefused(.invalidToken)
        var owner: String?
        let attempt = try await throttle.attempt(keys, now: clock()) {
            (outcome, owner) = try await ownerInbox(username, accessToken: accessToken)
            return owner != nil
        }
        guard case .passed = attempt, let owner, case .signedIn(var holder) = outcome else {
            await record(.mailboxSignInFailed, actor: name, client: client, credential: "oauth")
            if case .slowed = attempt { return .throttled }
            return outcome
        }
        await record(.mailboxSignIn, actor: owner, target: holder.address, client: client, credential: "oauth")
        let address = holder.address
        holder.standing = IMAPStanding { [self] in
            // The token again: its grant revoked, or its lifetime over, ends the session as it ends the token.
            guard case (.signedIn(let now), _) = try await ownerInbox(username, accessToken: accessToken),
                now.address == address
            else { return .credentialRevoked }
            return nil
        }
        return .signedIn(holder)
    }

    /// The local recipient of the account a sign-in `opened` and the account's standing then (its id, address and
    /// token epoch, which ``IMAPStanding`` compares with later); nil when it opened none or the account is gone.
    private func signedInAccount(_ opened: (id: String, address: String)?) async throws
        -> (Recipient, (id: String, address: String, tokenEpoch: Int64))?
    {
        guard let opened, case .local(let recipient) = try await directory.resolve(opened.address),
            let standing = try await surface.accountStanding(id: opened.id)
        else { return nil }
        return (recipient, (opened.id, opened.address, standing.tokenEpoch))
    }

    /// Whether `client`'s bucket has a token for one more attempt (taken).
    private func admits(_ client: String) -> Bool {
        limiter?.take(.publicRequests, for: ClientAddressKey(peer: client)).allowed ?? true
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
        let (agents, account) = (agents, principal.accountID)
        let standing = IMAPStanding {
            // The key again, by its digest: a revoked key or a deleted agent ends the session.
            try await agents.principal(for: Credentials(bearerToken: key))?.accountID == account ? nil : .credentialRevoked
        }
        return .signedIn(
            IMAPMailboxHolder(address: principal.mailbox.address, quota: principal.mailbox.quota, standing: standing))
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
