import AppPasswords
import Audit
import BrowserPages
import ClientAddress
import Directory
import EmailAddresses
import MailboxAccounts
import ServerKit

/// The one owner of mail credentials (issue 82): which credential opens which mailbox at the mail doors, with their
/// backoff and their audit. Built once by the composition root and handed to IMAP and POP3 (through `MailDoorSignIn`)
/// and to the web inbox's Mail.td sign-in (through `WebInboxSignIn`), and to the submission listener (issue 87, through
/// `SubmissionSignIn`).
///
/// What it accepts, each checked by the owner of the credential, never by its text alone:
/// - an agent inbox's address with its API key (as JMAP and MCP check it, by its digest; the name must be the key's
///   inbox);
/// - a Mail.td account's address with its password (`POST /api/token`'s very check, the same cost whether the address
///   exists or not) or with a `tm_pro_` API token of the Pro user who owns it (the Mail.td routes' bearer check);
/// - an owner's inbox with an OAuth access token (JMAP's and MCP's verifier: issuer, the `/jmap` or inbox-bound
///   audience, a live grant, `mail.read`; `mail.send` at the submission door), by `AUTHENTICATE OAUTHBEARER`/`XOAUTH2`
///   or as `LOGIN`'s password;
/// - an app password (issue 87 item 2) with the address of the one inbox it was made for, at the doors it was made
///   for, while its holder (an owner, a Pro user) holds that inbox (``appPasswordMailbox(_:door:username:)``); found by
///   its digest, checked again for the session's standing, refused everywhere else.
///
/// A signed-in mailbox says whether its holder may send from it (``Mailbox/sends``): an agent's key and an owner's token
/// with `mail.send` may; a Mail.td account, which sends nothing on Mail.td, may not (its password or Pro token signs in
/// at the submission door all the same, and the door says why it refuses the sender).
///
/// At a mail door, in this order: each attempt takes a token from the client address's bucket of `POST /api/token`'s
/// rate (Mail.td's public requests, 8 a second, shared by IMAP and POP3; none with `POSTERN_RATE_LIMITS=off`), so that
/// a client that names a new user at each attempt (which no name's backoff slows) costs at most the hashes HTTP would
/// let it; passwords, Pro tokens and access tokens then go through the sign-in backoff on the keys this type gives
/// (``accountKeys(address:client:)``), which the web inbox's sign-in counts on too, so a failure at either door slows
/// both; each sign-in and refusal is on the audit trail naming the door. A signed-in mailbox carries how its
/// credential is checked again (``Standing``): the account by its id and token epoch, the Pro token, the key, the
/// grant, never the address alone.
public struct MailSignIn: Sendable {
    /// The mail protocol signed in to, as the audit trail's details name it.
    public enum Door: String, Sendable {
        case imap, pop3, submission

        /// What an owner's access token must allow here: `mail.send` to submit, `mail.read` to read.
        var needs: MailPermissions { self == .submission ? .send : .read }
    }

    /// Agent inboxes' API keys: how one begins, and who one is (JMAP's and MCP's authenticator).
    public struct AgentKeys: Sendable {
        let prefix: String
        let authenticator: any PrincipalAuthenticator

        /// - Parameters:
        ///   - prefix: how every agent API key begins (a password that does not is never tried as one).
        ///   - authenticator: the agents' own check of a key, by its digest.
        public init(prefix: String, authenticator: any PrincipalAuthenticator) {
            self.prefix = prefix
            self.authenticator = authenticator
        }
    }

    /// Owners' OAuth access tokens: the resource side's verifier and the owners' inboxes as principals.
    public struct OwnerTokens: Sendable {
        let verifier: any AccessGrantAuthenticator
        let principals: OwnerPrincipals

        public init(verifier: any AccessGrantAuthenticator, principals: OwnerPrincipals) {
            self.verifier = verifier
            self.principals = principals
        }
    }

    let accounts: MailboxAccountService
    let agents: AgentKeys
    let owners: OwnerTokens
    /// Every local mailbox: a Mail.td account's recipient (its quota).
    let directory: LocalDirectory
    let throttle: SignInThrottle
    /// The per-client buckets of the mail doors' sign-ins; nil when rate limits are off.
    let limiter: RateLimitTable<MailboxRateClass>?
    let audit: AuditTrail
    /// App passwords; nil: none is accepted.
    let appPasswords: AppPasswordStore?
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - accounts: Mail.td's accounts and Pro users; their configuration's rate limits make the mail doors' bucket.
    ///   - agents: the agent inboxes' keys.
    ///   - owners: the owners' access tokens.
    ///   - directory: every local mailbox.
    ///   - throttle: the sign-in backoff (the web inbox's settings).
    ///   - audit: where each mail door's sign-in and refusal is recorded.
    ///   - appPasswords: the app passwords; nil accepts none.
    ///   - clock: Unix seconds, for the backoff.
    public init(
        accounts: MailboxAccountService, agents: AgentKeys, owners: OwnerTokens, directory: LocalDirectory,
        throttle: SignInThrottle, audit: AuditTrail, appPasswords: AppPasswordStore? = nil,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.appPasswords = appPasswords
        self.accounts = accounts
        self.agents = agents
        self.owners = owners
        self.directory = directory
        self.throttle = throttle
        self.audit = audit
        self.clock = clock
        let mailbox = accounts.configuration
        if mailbox.rateLimitsEnabled {
            let rates = mailbox.rateLimits.share(among: mailbox.instances)
            limiter = RateLimitTable(capacity: mailbox.rateLimitTableCapacity) { rates.rate(of: $0) }
        } else {
            limiter = nil
        }
    }

    /// Whether `client`'s bucket has a token for one more attempt at a mail door (taken).
    func admits(_ client: String) -> Bool {
        limiter?.take(.publicRequests, for: ClientAddressKey(peer: client)).allowed ?? true
    }

    /// A mail door's sign-in or refusal on the audit trail; `credential` names an OAuth one.
    func record(
        _ action: AuditAction, door: Door, actor: String, target: String? = nil, client: String,
        credential: String? = nil
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

    /// A sign-in with a delegated access token (token exchange): on the owner's trail as the acting client's
    /// (``AuditEvent/acting(for:actorIDs:_:target:client:details:time:)``), the door and credential in the details
    /// beside the actor chain.
    func recordActing(_ delegation: Delegation, door: Door, target: String, client: String) async {
        await audit.record {
            .acting(
                for: delegation.ownerID, actorIDs: delegation.actorIDs, .mailboxSignIn, target: target, client: client,
                details: [("door", door.rawValue), ("credential", "oauth")], time: $0)
        }
    }
}
