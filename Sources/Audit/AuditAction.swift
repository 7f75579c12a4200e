/// What an audit event records: a closed list whose raw values (`owner.signin`, `inbox.created`, ...) are stored and
/// shown by `postern audit`, so a name, once released, never changes.
public enum AuditAction: String, Sendable, CaseIterable, Codable {
    /// An owner signed in with email and password, or with a passkey (details `{"method":"passkey"}`).
    case ownerSignIn = "owner.signin"
    /// A sign-in was refused (wrong email or password, or slowed down); the actor id is the email typed.
    case ownerSignInFailed = "owner.signin_failed"
    /// An owner who holds a passkey removed their password: passkeys alone sign them in.
    case ownerPasswordRemoved = "owner.password_removed"
    /// An owner turned their second factor (TOTP) on, confirming it with a first code (issue 88).
    case ownerSecondFactorOn = "owner.mfa_enabled"
    /// An owner turned their second factor off (with a fresh sign-in).
    case ownerSecondFactorOff = "owner.mfa_disabled"
    /// An owner made a new set of recovery codes (the old ones stop working).
    case ownerRecoveryCodesRenewed = "owner.recovery_codes_renewed"
    /// An owner signed in with one of their recovery codes (one fewer left).
    case ownerRecoveryCodeUsed = "owner.recovery_code_used"
    /// The operator removed an owner's second factor (`postern owner mfa reset`): a password signs them in alone
    /// until they set one up again.
    case ownerSecondFactorReset = "owner.mfa_reset"
    /// A Pro user signed in to the web inbox with a passkey (details `{"method":"passkey"}`).
    case proSignIn = "pro.signin"
    /// A Pro user who holds a passkey (or a linked provider) removed their password in the Pro dashboard.
    case proPasswordRemoved = "pro.password_removed"
    /// A Pro user's passkey sign-in was refused (actor `passkey`; the reason in the details), or a code at their second
    /// step (the reason `wrong_code`, `code_replayed` or `slowed`).
    case proSignInFailed = "pro.signin_failed"
    /// A Pro user turned their second factor (TOTP) on, confirming it with a first code (issue 88).
    case proSecondFactorOn = "pro.mfa_enabled"
    /// A Pro user turned their second factor off (with a fresh sign-in).
    case proSecondFactorOff = "pro.mfa_disabled"
    /// A Pro user made a new set of recovery codes (the old ones stop working).
    case proRecoveryCodesRenewed = "pro.recovery_codes_renewed"
    /// A Pro user signed in with one of their recovery codes (one fewer left).
    case proRecoveryCodeUsed = "pro.recovery_code_used"
    /// The operator removed a Pro user's second factor (`postern pro mfa reset`).
    case proSecondFactorReset = "pro.mfa_reset"
    /// A passkey was registered (its holder's action; the target is its name).
    case passkeyAdded = "passkey.added"
    /// A passkey was renamed by its holder.
    case passkeyRenamed = "passkey.renamed"
    /// A passkey was removed (by its holder, or by the operator for a lost device).
    case passkeyRemoved = "passkey.removed"
    /// A passkey's counter went back: the sign-in was refused and the passkey signs nobody in until it is removed.
    case passkeyPossiblyCloned = "passkey.possibly_cloned"
    /// An owner made an agent inbox (owner pages, a custom domain, or an app's consent).
    case inboxCreated = "inbox.created"
    /// An owner linked an agent inbox by its API key.
    case inboxLinked = "inbox.linked"
    /// An owner let go of an inbox (it stays, held by nobody).
    case inboxUnlinked = "inbox.unlinked"
    /// An owner deleted an inbox and its mail.
    case inboxDeleted = "inbox.deleted"
    /// An owner rotated an inbox's API key.
    case inboxKeyRotated = "inbox.key_rotated"
    /// An owner approved an app at the OAuth consent.
    case appApproved = "app.approved"
    /// An owner revoked an app's grant.
    case appRevoked = "app.revoked"
    /// A confidential client took a token of its own (the client credentials grant); the actor is the client, the
    /// target the grant (its token's `jti`), the details its scope and resource.
    case clientCredentialsGranted = "app.client_credentials"
    /// An owner made an agent client of their own on `/owner/clients` (the target is its client id).
    case agentClientCreated = "client.created"
    /// An owner deleted one of their agent clients (its tokens stop working).
    case agentClientDeleted = "client.deleted"
    /// An app password was made (by an owner, a Pro user or the operator; the target is its id, the details its inbox
    /// and doors, never the secret).
    case appPasswordCreated = "app_password.created"
    /// An app password was revoked: it opens nothing from now on.
    case appPasswordRevoked = "app_password.revoked"
    /// An agent client took a token acting for an owner by token exchange (RFC 8693); the actor is the client, the
    /// target the new token's `jti`, the details its scope, resource, `act` and subject token type.
    case tokenExchanged = "app.token_exchange"
    /// An agent client took a token for an owner with an identity assertion (the JWT bearer grant, ID-JAG); the
    /// details name the assertion's issuer.
    case identityAssertionGranted = "app.jwt_bearer"
    /// An agent client acting for an owner (a token from token exchange) sent mail from one of the owner's inboxes at
    /// JMAP or MCP; the actor is the client, the target the inbox's address, the details the actor chain (`act`, the
    /// current actor first) and the submission's id.
    case agentSentMail = "agent.sent"
    /// An agent client acting for an owner first read at JMAP or MCP with a delegated token (token exchange): one line
    /// per token and door on each instance, not one per request; the actor is the client, the target the token's `jti`
    /// (the `app.token_exchange` line's target), the details the door and the actor chain (`act`, current first).
    case agentRead = "agent.read"
    /// An owner let an agent client act for them (`/owner/actors`; the target is its client id).
    case actorAllowed = "actor.allowed"
    /// An owner took an agent client's leave to act for them away (its delegated tokens stop working).
    case actorRemoved = "actor.removed"
    /// A custom domain was added (by an owner or a Pro account).
    case domainAdded = "domain.added"
    /// A custom domain was proven by DNS.
    case domainVerified = "domain.verified"
    /// A custom domain was removed.
    case domainRemoved = "domain.removed"
    /// A Mail.td Pro API token was made.
    case proTokenCreated = "pro_token.created"
    /// A Mail.td Pro API token was revoked.
    case proTokenRevoked = "pro_token.revoked"
    /// The operator rotated the signing keys.
    case keysRotated = "keys.rotated"
    /// The operator retired old signing keys.
    case keysRetired = "keys.retired"
    /// A sign-in provider's identity was linked to the account (from its settings, with its password, or by a trusted
    /// email); the target is the provider's name, the details its issuer and subject.
    case signInLinked = "signin.linked"
    /// A sign-in provider's identity was unlinked from the account.
    case signInUnlinked = "signin.unlinked"
    /// A sign-in provider's first sign-in made the account (`_ALLOW_SIGNUP`).
    case signInSignedUp = "signin.signed_up"
    /// A sign-in provider's identity was not linked: a wrong password on the link page, an identity linked to another
    /// account, or an email no one may link into.
    case signInLinkRefused = "signin.link_refused"
    /// Any other operator command that changes something (its name in the target; never its secrets).
    case operatorCommand = "operator.command"
    /// A mailbox's holder signed in to IMAP or POP3 (the target is the mailbox's address; details `{"door":"imap"}` or
    /// `{"door":"pop3"}`).
    case mailboxSignIn = "mailbox.signin"
    /// An IMAP or POP3 sign-in was refused (wrong name or password, or slowed down); the actor id is the name typed.
    case mailboxSignInFailed = "mailbox.signin_failed"

    /// The action in words, for the owner's "Recent activity".
    public var words: String {
        switch self {
        case .ownerSignIn: "Signed in"
        case .ownerSignInFailed: "Sign-in refused"
        case .ownerPasswordRemoved: "Password removed"
        case .ownerSecondFactorOn: "Two-step sign-in turned on"
        case .ownerSecondFactorOff: "Two-step sign-in turned off"
        case .ownerRecoveryCodesRenewed: "New recovery codes made"
        case .ownerRecoveryCodeUsed: "Signed in with a recovery code"
        case .ownerSecondFactorReset: "Two-step sign-in reset by the operator"
        case .proSignIn: "Signed in"
        case .proPasswordRemoved: "Password removed"
        case .proSignInFailed: "Sign-in refused"
        case .proSecondFactorOn: "Two-step sign-in turned on"
        case .proSecondFactorOff: "Two-step sign-in turned off"
        case .proRecoveryCodesRenewed: "New recovery codes made"
        case .proRecoveryCodeUsed: "Signed in with a recovery code"
        case .proSecondFactorReset: "Two-step sign-in reset by the operator"
        case .passkeyAdded: "Passkey added"
        case .passkeyRenamed: "Passkey renamed"
        case .passkeyRemoved: "Passkey removed"
        case .passkeyPossiblyCloned: "Passkey refused: possibly cloned"
        case .inboxCreated: "Inbox created"
        case .inboxLinked: "Inbox linked"
        case .inboxUnlinked: "Inbox unlinked"
        case .inboxDeleted: "Inbox deleted"
        case .inboxKeyRotated: "Inbox API key rotated"
        case .appApproved: "App approved"
        case .appRevoked: "App revoked"
        case .clientCredentialsGranted: "Client took a token"
        case .agentClientCreated: "Agent client created"
        case .agentClientDeleted: "Agent client deleted"
        case .appPasswordCreated: "App password made"
        case .appPasswordRevoked: "App password revoked"
        case .tokenExchanged: "Agent took a token acting for you"
        case .identityAssertionGranted: "Agent took a token with an identity assertion"
        case .agentSentMail: "Agent sent mail acting for you"
        case .agentRead: "Agent read your mail acting for you"
        case .actorAllowed: "Agent allowed to act for you"
        case .actorRemoved: "Agent no longer acts for you"
        case .domainAdded: "Domain added"
        case .domainVerified: "Domain verified"
        case .domainRemoved: "Domain removed"
        case .proTokenCreated: "API token created"
        case .proTokenRevoked: "API token revoked"
        case .keysRotated: "Signing keys rotated"
        case .keysRetired: "Signing keys retired"
        case .signInLinked: "Sign-in provider linked"
        case .signInUnlinked: "Sign-in provider unlinked"
        case .signInSignedUp: "Account made by a sign-in provider"
        case .signInLinkRefused: "Sign-in provider link refused"
        case .operatorCommand: "Operator command"
        case .mailboxSignIn: "Signed in"
        case .mailboxSignInFailed: "Sign-in refused"
        }
    }
}
