import BrowserPages
import ClientAddress
import Directory
import EmailAddresses
import MailboxAccounts

/// The mail doors' two ways in (IMAP's `LOGIN` and `AUTHENTICATE PLAIN`/`LOGIN`, POP3's `USER`/`PASS` and `AUTH`; and
/// the SASL bearer mechanisms), with the bucket, the backoff and the audit of ``MailSignIn``.
extension MailSignIn {
    /// The mailbox `username` and `password` open at `door`: an agent key, an owner's access token, a `tm_pro_` token
    /// or a Mail.td password, told apart by the credential's form and checked by its owner.
    /// - Parameter client: the client's address (the PROXY header's when a balancer sent one), for the bucket, the
    ///   backoff and the audit trail.
    /// - Throws: storage errors.
    public func signIn(at door: Door, username: String, password: String, client: String) async throws -> Outcome {
        guard admits(client) else { return .throttled }
        if password.hasPrefix(agents.prefix) { return try await agentSignIn(door, username, key: password, client: client) }
        if BearerAuthenticator.isAccessToken(password) {
            return try await ownerSignIn(door, username, accessToken: password, client: client)
        }
        let keys = Self.accountKeys(address: username, client: ClientAddressKey(peer: client))
        let isAPIToken = password.hasPrefix(MailboxAccountService.apiTokenPrefix)
        var opened: (id: String, address: String)?
        var app: AppPasswordOpening?
        let attempt = try await throttle.attempt(keys, now: clock()) {
            // An app password is found by its digest; a password of its form that is none is a Mail.td password.
            if let found = try await appPasswords?.find(password) {
                app = AppPasswordOpening(
                    password: found, mailbox: try await appPasswordMailbox(found, door: door, username: username))
                return app?.mailbox != nil
            }
            opened =
                try await isAPIToken
                ? accounts.signInAccount(address: username, apiToken: password)
                : accounts.signInAccount(address: username, password: password)
            return opened != nil
        }
        if let app { return try await appPasswordOutcome(app, attempt: attempt, door, username, client: client) }
        let found = try await signedInAccount(attempt == .passed ? opened : nil)
        guard let found else {
            await record(.mailboxSignInFailed, door: door, actor: username, client: client)
            if case .slowed = attempt { return .throttled }
            return .refused
        }
        let (recipient, account) = found
        await record(.mailboxSignIn, door: door, actor: account.id, target: recipient.address, client: client)
        let service = accounts
        let standing: Standing = {
            // The account by its id, never its address: one made again at the address is another account.
            guard let now = try await service.accountStanding(id: account.id),
                EmailAddress.same(now.address, account.address)
            else { return .accountDeleted }
            guard now.tokenEpoch == account.tokenEpoch else { return .credentialChanged }
            guard isAPIToken else { return nil }
            let still = try await service.signInAccount(address: account.address, apiToken: password)
            return still?.id == account.id ? nil : .credentialRevoked
        }
        return .signedIn(
            Mailbox(
                address: recipient.address, quota: recipient.quota, standing: standing, accountID: account.id,
                sends: false))
    }

    /// What an app password's attempt came to: its mailbox (its last use noted, at most once a minute), or the refusal,
    /// each on the audit trail as an app password's.
    private func appPasswordOutcome(
        _ app: AppPasswordOpening, attempt: SignInThrottle.Attempt, _ door: Door, _ username: String, client: String
    ) async throws -> Outcome {
        guard case .passed = attempt, let mailbox = app.mailbox else {
            await record(.mailboxSignInFailed, door: door, actor: username, client: client, credential: "app_password")
            return .refused
        }
        try await appPasswords?.markUsed(app.password, now: clock())
        await record(
            .mailboxSignIn, door: door, actor: mailbox.accountID, target: mailbox.address, client: client,
            credential: "app_password")
        return .signedIn(mailbox)
    }

    /// The mailbox an OAuth access token from Postern's own `/oauth/token` opens at `door` (`AUTHENTICATE
    /// OAUTHBEARER`, `XOAUTH2`): the owner's inbox `username` names, or the grant's default inbox when it names none.
    /// - Throws: storage errors.
    public func signIn(at door: Door, username: String?, accessToken: String, client: String) async throws -> Outcome {
        guard admits(client) else { return .throttled }
        return try await ownerSignIn(door, username, accessToken: accessToken, client: client)
    }

    private func ownerSignIn(_ door: Door, _ username: String?, accessToken: String, client: String) async throws
        -> Outcome
    {
        let name = username ?? ""
        let keys = Self.accountKeys(address: name, client: ClientAddressKey(peer: client))
        var refusal = TokenRefusal.invalidToken
        var opened: (owner: String, inbox: Principal)?
        let attempt = try await throttle.attempt(keys, now: clock()) {
            switch try await ownerInbox(username, accessToken: accessToken, needs: door.needs) {
            case .opened(let owner, let inbox): opened = (owner, inbox)
            case .refused(let refused): refusal = refused
            }
            return opened != nil
        }
        guard case .passed = attempt, let (owner, inbox) = opened else {
            await record(.mailboxSignInFailed, door: door, actor: name, client: client, credential: "oauth")
            guard case .slowed = attempt else { return .tokenRefused(refusal) }
            // Slowed, the token was not checked. One refused on what it is (forged, expired, another resource's such
            // as /mcp, without mail.read) is told so all the same, RFC 7628's error then AUTHENTICATIONFAILED: no retry
            // makes it good, and "try later" would send the client back with it. It counts as a failure.
            guard let refused = statelessRefusal(accessToken, needs: door.needs) else { return .throttled }
            try await throttle.failed(keys, now: clock())
            return .tokenRefused(refused)
        }
        let address = inbox.mailbox.address
        if let delegation = inbox.delegation {
            // An agent acting for the owner (token exchange): the line names the agent and whom it acts for.
            await recordActing(delegation, door: door, target: address, client: client)
        } else {
            await record(.mailboxSignIn, door: door, actor: owner, target: address, client: client, credential: "oauth")
        }
        let standing: Standing = { [self] in
            // The token again: its grant revoked, or its lifetime over, ends the session as it ends the token.
            guard case .opened(_, let now) = try await ownerInbox(username, accessToken: accessToken, needs: door.needs),
                now.mailbox.address == address
            else { return .credentialRevoked }
            return nil
        }
        return .signedIn(
            Mailbox(
                address: address, quota: inbox.mailbox.quota, standing: standing, accountID: inbox.accountID,
                sends: inbox.permissions.contains(.send)))
    }

    /// The local recipient of the account a sign-in `opened` and the account's standing then (its id, address and
    /// token epoch, which the ``Standing`` compares with later); nil when it opened none or the account is gone.
    private func signedInAccount(_ opened: (id: String, address: String)?) async throws
        -> (Recipient, (id: String, address: String, tokenEpoch: Int64))?
    {
        guard let opened, case .local(let recipient) = try await directory.resolve(opened.address),
            let standing = try await accounts.accountStanding(id: opened.id)
        else { return nil }
        return (recipient, (opened.id, opened.address, standing.tokenEpoch))
    }

    /// What an access token came to at the owners' side.
    private enum OwnerInbox {
        /// The inbox it opens, and the owner's id.
        case opened(owner: String, inbox: Principal)
        case refused(TokenRefusal)
    }

    /// Why `token` opens no mailbox at a door that `needs` these permissions, whoever holds it (the verifier's check
    /// without the grant store, then the scope it claims); nil when only its grant can tell.
    private func statelessRefusal(_ token: String, needs: MailPermissions) -> TokenRefusal? {
        do {
            guard let permissions = try owners.verifier.statelessCheck(token, resources: Self.tokenResources) else {
                return nil
            }
            return permissions.isSuperset(of: needs) ? nil : .insufficientScope
        } catch {
            return .invalidToken
        }
    }

    /// The resources an access token may be for at a mail door: the mail resource (`/jmap`) or an inbox-bound one.
    private static let tokenResources: Set<AccessGrant.Resource> = [.jmap, .anyAgent]

    /// The owner's inbox `username` names (else the grant's default, or the only one) that `token` opens with the
    /// permissions a door `needs`, with the owner's id; the refusal otherwise.
    private func ownerInbox(_ username: String?, accessToken token: String, needs: MailPermissions) async throws
        -> OwnerInbox
    {
        do {
            let grant = try await owners.verifier.grant(for: token, resources: Self.tokenResources)
            guard grant.permissions.isSuperset(of: needs) else { return .refused(.insufficientScope) }
            guard case .inbox(let chosen) = try await owners.principals.choose(grant, agent: username) else {
                return .refused(.invalidToken)
            }
            return .opened(owner: grant.ownerID, inbox: chosen)
        } catch is AuthenticationRefusal {
            return .refused(.invalidToken)
        }
    }

    /// An agent inbox's address and API key: the key's live agent, whose inbox the name must be.
    private func agentSignIn(_ door: Door, _ username: String, key: String, client: String) async throws -> Outcome {
        guard let principal = try await agents.authenticator.principal(for: Credentials(bearerToken: key)),
            EmailAddress.same(principal.mailbox.address, username)
        else {
            await record(.mailboxSignInFailed, door: door, actor: username, client: client)
            return .refused
        }
        let address = principal.mailbox.address
        await record(.mailboxSignIn, door: door, actor: principal.accountID, target: address, client: client)
        let (authenticator, account) = (agents.authenticator, principal.accountID)
        let standing: Standing = {
            // The key again, by its digest: a revoked key or a deleted agent ends the session.
            try await authenticator.principal(for: Credentials(bearerToken: key))?.accountID == account
                ? nil : .credentialRevoked
        }
        return .signedIn(
            Mailbox(
                address: address, quota: principal.mailbox.quota, standing: standing, accountID: principal.accountID,
                sends: principal.permissions.contains(.send)))
    }
}
