import AgentAuth
import ConfigurationReading
import Fetch
import JMAP
import MCPServer
import MailSandbox
import MailpitAPI
import MailosaurAPI
import MailTransfer
import OutboundQueue
import MailCX
import MailTM
import MailboxAccounts
import OAuthServer
import Owners
import ServerKit
import SignInProviders
import WebAuthn
import WebSocket
import WebInbox
import Webhooks

/// Everything Postern reads at start, validated: one part per concern, each reading and validating its own keys
/// (`init(config:)`) and listing them once in its doc comment under `## Configuration keys`. Built by
/// ``ConfigurationLoader`` from the config file, the process environment and command-line flags (later sources win),
/// or directly in tests.
///
/// To add a concern: its type (with `init(config:)`, `validate()` and its key list) in the target where the concern
/// lives, one field here, one line in ``init(config:)`` and one in ``validate()``.
public struct PosternConfiguration: Sendable {
    /// Where HTTP listens, its connection caps and event loops, the trusted proxies and the drain.
    public var listener = ListenerConfiguration()
    /// The public URL and the tokens' issuer; unset, both follow the listener.
    public var identity = IdentityConfiguration()
    /// The data directory, the database and how long the change log and the audit trail keep rows.
    public var storage = StorageConfiguration()
    /// The signing keys: the operator's pair or the sealing secret, the reload and the promotion delay.
    public var signingKeys = SigningKeyConfiguration()
    /// Whether rate limits apply and among how many instances; the composition root hands both to every surface.
    public var rateLimits = RateLimitConfiguration()
    /// The Argon2id cost of the passwords every surface stores.
    public var passwords = PasswordHashConfiguration()
    /// The MX host custom domains must name and the DNS resolver.
    public var dns = DNSConfiguration()
    /// The log level and where `/metrics` is served, behind which token.
    public var observability = ObservabilityConfiguration()
    /// The SMTP listener.
    public var smtp = SMTPListenerConfiguration()
    /// Who local delivery takes mail for besides the accounts: subaddresses and the catch-all.
    public var recipients = RecipientPolicyConfiguration()
    /// How much mail is kept: at most so many messages, none older than an age.
    public var retention = MailRetentionConfiguration()
    /// The SMTP sandbox's listener.
    public var sandbox = SandboxConfiguration()
    /// The IMAP listener (issue 70).
    public var imap = IMAPListenerConfiguration()
    /// The POP3 listener (issue 70).
    public var pop3 = POP3ListenerConfiguration()
    /// The submission listener (issue 87).
    public var submission = SubmissionListenerConfiguration()
    /// Mailpit's API v1: its base path; the composition root adds the operator's token.
    public var mailpit = MailpitConfiguration()
    /// Mailosaur's API (issue 85): its base path; the composition root adds the operator's token and the catch-all.
    public var mailosaur = MailosaurConfiguration()
    /// How failed webhook deliveries are retried.
    public var webhooks = WebhookConfiguration()
    /// Which addresses outbound requests (remote-hash fetches, webhook deliveries) may reach.
    public var outboundAddresses = OutboundAddressConfiguration()
    /// The agent surface's settings; the composition root adds the public URL, the issuer and what surfaces share.
    public var agent = AgentAuthConfiguration()
    /// The Mail.td surface's settings; the composition root adds the issuer and what surfaces share.
    public var mailbox = MailboxConfiguration()
    /// mail.tm's API over the Mail.td surface's accounts (issue 72): its base path and domains.
    public var mailTM = MailTMConfiguration()
    /// mail.cx's REST API (issue 72): its base path, domains, retention and long-poll hold.
    public var mailCX = MailCXConfiguration()
    /// The owners' settings; the composition root adds what surfaces share.
    public var owners = OwnersConfiguration(publicURL: "")
    /// The identity providers owners and Pro users may sign in with (none by default).
    public var signInProviders = SignInProvidersConfiguration()
    /// The authorization server's settings; the composition root adds the issuer and what surfaces share.
    public var oauth = OAuthConfiguration(issuer: "")
    /// JMAP's settings; the composition root adds the base URL and what surfaces share.
    public var jmap = JMAPConfiguration(baseURL: "")
    /// MCP's settings; the composition root adds the base URL and what surfaces share.
    public var mcp = MCPConfiguration(baseURL: "")
    /// The web inbox's own settings (its live list's limits); the composition root adds the public URL and what it
    /// shares with the owners' pages.
    public var webInbox = WebInboxConfiguration(publicURL: "")
    /// The passkeys' relying party: its RP ID and the origins besides the public URL's, checked against the public URL.
    public var webAuthn = WebAuthnConfiguration()
    /// Outbound delivery's transport: the mode (off, direct, relay), the relay, the port, TLS and its trust roots.
    public var outbound = OutboundConfiguration()
    /// The outbound queue: who may send outside, the per-sender limits, the retry schedule and the queue's lifetime.
    public var outboundQueue = OutboundQueueConfiguration()
    /// WebSockets: the message and send-queue limits, the ping and close timers, the origins allowed besides the
    /// public one.
    public var webSocket = WebSocketConfiguration()
    /// The profile whose defaults fill in what no flag, environment variable or named configuration file sets
    /// (`POSTERN_PROFILE` or `--profile`, read by ``ConfigurationLoader``; see ``ConfigurationProfile``).
    public var profile = ConfigurationProfile.standard

    /// A configuration with every default.
    public init() {}

    /// Every part read from `config` (a reader of whole names), each validating its own keys, then the rules that
    /// span two parts.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or validate.
    public init(config: ConfigurationReader) throws {
        listener = try ListenerConfiguration(config: config)
        identity = try IdentityConfiguration(config: config)
        storage = try StorageConfiguration(config: config)
        signingKeys = try SigningKeyConfiguration(config: config)
        rateLimits = try RateLimitConfiguration(config: config)
        passwords = try PasswordHashConfiguration(config: config)
        dns = try DNSConfiguration(config: config)
        observability = try ObservabilityConfiguration(config: config)
        smtp = try SMTPListenerConfiguration(config: config)
        recipients = try RecipientPolicyConfiguration(config: config)
        retention = try MailRetentionConfiguration(config: config)
        sandbox = try SandboxConfiguration(config: config)
        imap = try IMAPListenerConfiguration(config: config)
        pop3 = try POP3ListenerConfiguration(config: config)
        submission = try SubmissionListenerConfiguration(config: config)
        mailpit = try MailpitConfiguration(config: config)
        mailosaur = try MailosaurConfiguration(config: config)
        webhooks = try WebhookConfiguration(config: config)
        outboundAddresses = try OutboundAddressConfiguration(config: config)
        agent = try AgentAuthConfiguration(config: config)
        mailbox = try MailboxConfiguration(config: config)
        mailTM = try MailTMConfiguration(config: config)
        mailCX = try MailCXConfiguration(config: config)
        owners = try OwnersConfiguration(config: config)
        signInProviders = try SignInProvidersConfiguration(config: config)
        oauth = try OAuthConfiguration(config: config)
        jmap = try JMAPConfiguration(config: config)
        mcp = try MCPConfiguration(config: config)
        webInbox = try WebInboxConfiguration(config: config)
        webAuthn = try WebAuthnConfiguration(config: config)
        outbound = try OutboundConfiguration(config: config)
        outboundQueue = try OutboundQueueConfiguration(config: config)
        webSocket = try WebSocketConfiguration(config: config)
        try validate()
    }

    /// Refuses a configuration the server cannot run with, naming the key at fault: each part's own rules, then those
    /// that span two parts (the sealing secret a PostgreSQL database needs, the proxies a PROXY header comes from, the
    /// fully qualified SMTP name outbound delivery greets with, the RP ID and passkey origins the public URL allows, no
    /// sign-in provider trusted for emails while owner sign-up is open).
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        try listener.validate()
        try identity.validate()
        try storage.validate()
        try signingKeys.validate()
        try rateLimits.validate()
        try dns.validate()
        try observability.validate()
        try smtp.validate()
        try recipients.validate()
        try sandbox.validate()
        try imap.listener.validate()
        try pop3.listener.validate()
        try submission.listener.validate()
        try mailpit.validate()
        try mailosaur.validate()
        try webhooks.validate()
        try agent.validate()
        try mailbox.validate()
        try mailTM.validate()
        try mailTM.validate(servedBy: mailbox.domains + mailbox.proDomains)
        try mailCX.validate()
        try mailCX.validate(apartFrom: mailbox.domains + mailbox.proDomains + [agent.inboxDomain])
        try owners.validate()
        try signInProviders.validate()
        try oauth.validate()
        try jmap.validate()
        try webInbox.validate()
        try webAuthn.validate()
        try outbound.validate()
        try outboundQueue.validate()
        try webSocket.validate()
        try signingKeys.validate(for: storage.database())
        try smtp.validate(trustedProxies: listener.trustedProxies)
        try imap.listener.validate(trustedProxies: listener.trustedProxies)
        try pop3.listener.validate(trustedProxies: listener.trustedProxies)
        try submission.listener.validate(trustedProxies: listener.trustedProxies)
        try smtp.validate(outboundDelivery: outbound.mode != .off)
        try webAuthn.validate(publicURL: identity.publicURL)
        try signInProviders.validate(ownerSignUpOpen: owners.signUpOpen)
    }
}

extension PosternConfiguration {
    /// Whether an owner's inboxes send outside only once the operator made or approved the owner: outbound delivery is
    /// on and `POSTERN_OUTBOUND_SENDERS` is `owned` (``OutboundSenderRule``).
    public var outboundNeedsOwnerApproval: Bool {
        outbound.mode != .off && outboundQueue.senders == .owned
    }
}

/// A configuration value that cannot be used; the message names the key (declared in ConfigurationReading, where every
/// part's configuration type throws it).
public typealias ConfigurationError = ConfigurationReading.ConfigurationError
