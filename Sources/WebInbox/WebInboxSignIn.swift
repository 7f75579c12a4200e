import BrowserPages
import ClientAddress

/// The web inbox's sign-in port to the Mail.td side, which the composition root fills with the mailbox surface (its
/// tables stay behind it): who Mail.td credentials and one-time links open, what each session rests on
/// (``WebInboxSessionBinding``), and, once per request, what a session may read while that still holds.
public protocol WebInboxSignIn: Sendable {
    /// Who `credentials` are and what their session rests on from now; nil when refused (one answer for every
    /// refusal, which the web inbox's backoff counts).
    func signIn(_ credentials: WebInboxCredentials) async throws
        -> (principal: WebInboxPrincipal, binding: WebInboxSessionBinding)?

    /// What a session opened by a one-time link to `address` rests on: which account has that address now (or the
    /// catch-all's mailbox); nil when no local mailbox has it.
    func linkBinding(address: String) async throws -> WebInboxSessionBinding?

    /// Whether Pro user `id` has a password (one a sign-in provider made, or who removed theirs, has none).
    func proUserHasPassword(_ id: String) async throws -> Bool

    /// Removes the active Pro user `id`'s password once `password` proves it is theirs (issue 56); their sessions
    /// stand. The web inbox asks only when another way in is left (``SignInProviders/SignInWays``), under the password
    /// sign-in's backoff.
    /// - Returns: false when `password` is not theirs, they have none, or they are not active.
    func removeProUserPassword(_ id: String, password: String) async throws -> Bool

    /// The sign-in backoff's keys of `name` from `client`: those of the credentials' owner, which every other door
    /// that takes the same credential (IMAP, POP3) counts on too.
    func backoffKeys(_ name: WebInboxSignInName, client: ClientAddressKey) -> SignInThrottle.Keys

    /// What a session of `principal` resting on `binding` may read now, decided once for the request: nil when the
    /// binding no longer holds (the account's or Pro user's password changed, the pasted API token was revoked, the
    /// linked address is another account's), which ends the session. Never asked of ``WebInboxPrincipal/allMail``.
    func access(_ principal: WebInboxPrincipal, resting binding: WebInboxSessionBinding) async throws
        -> WebInboxAccess?
}

/// Whose failures a sign-in with Mail.td credentials counts toward (``WebInboxSignIn/backoffKeys(_:client:)``).
public enum WebInboxSignInName: Sendable, Equatable {
    /// A Mail.td account's address.
    case account(address: String)
    /// A Pro user's email.
    case proUser(email: String)
    /// A pasted `tm_pro_` API token.
    case apiToken(String)
}

/// What a person typed to sign in to the web inbox.
public enum WebInboxCredentials: Sendable, Equatable {
    /// A Mail.td account's address and password (v1 and v2 accounts).
    case account(address: String, password: String)
    /// An active Pro user's email and password.
    case proUser(email: String, password: String)
    /// A live `tm_pro_` API token of an active Pro user.
    case apiToken(String)
    /// A Pro user, by id, whose passkey the web inbox has just verified: signed in while they are active.
    case passkey(proUserID: String)
    /// A Pro user, by id, whose linked provider identity the web inbox has just signed in (issue 54): signed in while
    /// they are active.
    case provider(proUserID: String)
    /// A Pro user, by id, whose password the web inbox has just checked and who has just turned a second factor on
    /// with its first code at the second step: signed in while they are active, on their token epoch as it is now
    /// (turning the factor on moved it past the one their password found).
    case secondFactorSetUp(proUserID: String)
}

/// What a session may read now, as the Mail.td side found it.
public struct WebInboxAccess: Sendable, Equatable {
    /// Who reads, as the header shows it: the account's address, the Pro user's email, the linked address; empty when
    /// there is nobody to show (a Pro user suspended, who reads nothing).
    public var label: String
    /// The addresses the session may read, the Pro user's sandbox among them.
    public var mailboxes: [String]
    /// A Pro user's SMTP sandbox among ``mailboxes``; nil for anyone else, or before it has one.
    public var sandbox: String?

    /// Memberwise.
    public init(label: String, mailboxes: [String], sandbox: String? = nil) {
        self.label = label
        self.mailboxes = mailboxes
        self.sandbox = sandbox
    }

    /// Nothing to read: a session that still holds but whose Pro user is suspended.
    public static let nothing = WebInboxAccess(label: "", mailboxes: [])
}
