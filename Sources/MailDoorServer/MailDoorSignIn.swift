import Synchronization

/// Who a mail session (IMAP's, POP3's) acts for once signed in: the address whose mail it reads and the bytes that
/// address may hold (IMAP's APPEND or COPY is refused past it), and how the credential that signed it in is checked
/// again while it lasts.
public struct MailboxHolder: Sendable, Equatable {
    /// The mailbox's address, as the store keys it.
    public var address: String
    /// The address's quota in bytes.
    public var quota: Int64
    /// Whether the session may go on: the credential still good and the account still the one signed in to.
    public var standing: MailSessionStanding?

    public init(address: String, quota: Int64, standing: MailSessionStanding? = nil) {
        self.address = address
        self.quota = quota
        self.standing = standing
    }

    public static func == (a: Self, b: Self) -> Bool { a.address == b.address && a.quota == b.quota }
}

/// How a signed-in session's credential is checked again (review 7: a session outlived a password reset, a grant's
/// revocation and its account's deletion, and wrote into the mail of the next account made at the same address).
/// The sign-in port makes it with what identifies the account and the credential (the account's id and token epoch,
/// the grant, the key), never the address alone. It also owns when it is checked (``ended(at:writing:)``): before each
/// command that writes, and at most every ``recheck`` otherwise, IDLE included, for IMAP's and POP3's drivers alike,
/// on every instance (it reads the database).
public final class MailSessionStanding: Sendable {
    /// How often the check runs again when nothing writes. Default 2 s: a password reset, a revocation or a deletion
    /// ends the session within it, at one read a session per interval.
    public let recheck: Duration
    /// Nil while the session may go on; otherwise why it ends.
    private let check: @Sendable () async throws -> MailSessionEnd?
    /// When the check last found the session good (Unix seconds).
    private let checkedAt = Atomic<Int64>(0)

    public init(recheck: Duration = .seconds(2), _ check: @escaping @Sendable () async throws -> MailSessionEnd?) {
        self.recheck = recheck
        self.check = check
    }

    /// The credential was just checked at `now` (by the sign-in itself).
    package func checked(at now: Int64) {
        checkedAt.store(now, ordering: .relaxed)
    }

    /// Whether ``ended(at:writing:)`` would check at `now`: a command that is `writing`, or ``recheck`` passed since
    /// the last check. A command answered on the event loop (IMAP's short work) is answered there only when no check
    /// is due; otherwise it goes to its task, which checks.
    package func isDue(at now: Int64, writing: Bool) -> Bool {
        writing || now - checkedAt.load(ordering: .relaxed) >= recheck.components.seconds
    }

    /// Why the session must end, checked at `now` when a command that is `writing` asks, or once ``recheck`` has
    /// passed since the last check; nil while it may go on, when no check was due, or when the check could not be made
    /// (the store failed: the command itself will say so).
    package func ended(at now: Int64, writing: Bool) async -> MailSessionEnd? {
        guard isDue(at: now, writing: writing) else { return nil }
        guard let end = try? await check() else {
            checked(at: now)
            return nil
        }
        return end
    }
}

/// Why a signed-in session was ended by the server, as IMAP's `* BYE` and POP3's `-ERR [AUTH]` say.
public enum MailSessionEnd: Sendable, Equatable {
    /// The password was changed (or the account's tokens were otherwise reset).
    case credentialChanged
    /// The credential (an API token, an API key, an access token or its grant) was revoked or expired.
    case credentialRevoked
    /// The account was deleted.
    case accountDeleted

    /// The text of the goodbye.
    public var text: String {
        switch self {
        case .credentialChanged: return "Signed out: the password was changed"
        case .credentialRevoked: return "Signed out: the credential was revoked or has expired"
        case .accountDeleted: return "Signed out: the account was deleted"
        }
    }
}

/// The port through which the mail doors (IMAP, POP3) check a sign-in with the holder's existing credential (a Mail.td
/// account's address and password or its Pro user's API token, an agent inbox's address and API key, an owner's OAuth
/// access token). The composition root fills it from the one owner of mail credentials; no door reads their tables. A
/// conformer counts failures toward the sign-in backoff and records each sign-in in the audit trail.
public protocol MailDoorSignIn: Sendable {
    /// The mailbox `username` and `password` open; nil when refused (the same answer for an unknown user and a wrong
    /// password).
    /// - Parameter client: the client's address (the PROXY header's when a balancer sent one), for the backoff and
    ///   the audit trail.
    /// - Throws: storage errors (the session answers `NO [UNAVAILABLE]`).
    func signIn(username: String, password: String, client: String) async throws -> MailDoorSignInOutcome

    /// The mailbox an OAuth access token from Postern's own `/oauth/token` opens (`AUTHENTICATE OAUTHBEARER`,
    /// `XOAUTH2`): the owner's inbox `username` names, or the grant's default inbox when it names none.
    /// - Returns: ``MailDoorSignInOutcome/tokenRefused(_:)`` for a token that does not open it.
    /// - Throws: storage errors (the session answers `NO [UNAVAILABLE]`).
    func signIn(username: String?, accessToken: String, client: String) async throws -> MailDoorSignInOutcome
}

/// Why an access token was refused, as RFC 7628's error JSON tells the client (`status`).
public enum MailTokenRefusal: Sendable, Equatable {
    /// Expired, revoked, forged, for another resource, or not the holder of the inbox named: `invalid_token`.
    case invalidToken
    /// Valid, but without `mail.read`: `insufficient_scope`.
    case insufficientScope
}

/// What a sign-in came to.
public enum MailDoorSignInOutcome: Sendable, Equatable {
    case signedIn(MailboxHolder)
    /// Wrong user or password.
    case refused
    /// An access token that opens no mailbox (``MailTokenRefusal``).
    case tokenRefused(MailTokenRefusal)
    /// Too many failures from this client or for this user lately: try later (`NO [UNAVAILABLE]`).
    case throttled
}
