/// Who an IMAP session acts for once signed in: the address whose mail it reads and the bytes that address may hold
/// (an APPEND or COPY is refused past it).
public struct IMAPMailboxHolder: Sendable, Equatable {
    /// The mailbox's address, as the store keys it.
    public var address: String
    /// The address's quota in bytes.
    public var quota: Int64

    public init(address: String, quota: Int64) {
        self.address = address
        self.quota = quota
    }
}

/// The port through which IMAP checks a sign-in with the holder's existing credential (a Mail.td account's address and
/// password first). The composition root fills it from the surfaces that own the credentials; IMAP never reads their
/// tables. A conformer counts failures toward the sign-in backoff and records each sign-in in the audit trail.
public protocol IMAPSignIn: Sendable {
    /// The mailbox `username` and `password` open; nil when refused (the same answer for an unknown user and a wrong
    /// password).
    /// - Parameter client: the client's address (the PROXY header's when a balancer sent one), for the backoff and
    ///   the audit trail.
    /// - Throws: storage errors (the session answers `NO [UNAVAILABLE]`).
    func signIn(username: String, password: String, client: String) async throws -> IMAPSignInOutcome
}

/// What a sign-in came to.
public enum IMAPSignInOutcome: Sendable, Equatable {
    case signedIn(IMAPMailboxHolder)
    /// Wrong user or password.
    case refused
    /// Too many failures from this client or for this user lately: try later (`NO [UNAVAILABLE]`).
    case throttled
}
