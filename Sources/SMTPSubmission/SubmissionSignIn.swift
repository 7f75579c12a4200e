import SASL

/// The port through which the submission listener signs a client in with the credentials IMAP takes (a Mail.td
/// password or a Pro API token, an agent inbox's API key, an owner's OAuth access token with `mail.send`). The
/// composition root fills it from the one owner of mail credentials, which counts failures toward the sign-in backoff
/// and records each sign-in in the audit trail; this door reads no credential table.
public protocol SubmissionSignIn: Sendable {
    /// The mailbox `username` and `password` open; ``SubmissionSignInOutcome/refused`` for an unknown user and a wrong
    /// password alike.
    /// - Parameter client: the client's address (the PROXY header's when a balancer sent one), for the backoff and the
    ///   audit trail.
    /// - Throws: storage errors (the session answers `454 4.7.0`).
    func signIn(username: String, password: String, client: String) async throws -> SubmissionSignInOutcome

    /// The mailbox an OAuth access token opens (`AUTH XOAUTH2`, `OAUTHBEARER`): the owner's inbox `username` names, or
    /// the grant's default inbox when it names none; the token must carry `mail.send`.
    /// - Throws: storage errors.
    func signIn(username: String?, accessToken: String, client: String) async throws -> SubmissionSignInOutcome
}

/// What a submission sign-in came to.
public enum SubmissionSignInOutcome: Sendable {
    case signedIn(SubmissionMailbox)
    /// Wrong user or password.
    case refused
    /// An access token that opens no mailbox here, with RFC 7628's status (`insufficient_scope`: no `mail.send`).
    case tokenRefused(BearerSASL.Status)
    /// Too many failures from this client or for this user lately: try later.
    case throttled
}

/// Who a submission session acts for: the mailbox it sends as, what it may hold (its Sent copy counts against it), the
/// account its submissions are recorded under, whether it may send at all, and how its credential is checked again.
public struct SubmissionMailbox: Sendable {
    /// The mailbox's address, as the store keys it: the only `MAIL FROM` and `From` the session may use.
    public let address: String
    /// Its quota in bytes.
    public let quota: Int64
    /// JMAP's accountId, under which each submission is recorded (and listed by `EmailSubmission/get`).
    public let accountID: String
    /// Whether the credential may send from the mailbox; false for a Mail.td account, which sends nothing.
    public let sends: Bool
    /// True while the credential that signed in is still good (not revoked, changed, or its account deleted).
    /// - Throws: storage errors.
    public let standing: @Sendable () async throws -> Bool

    /// - Parameters: see the properties.
    public init(
        address: String, quota: Int64, accountID: String, sends: Bool,
        standing: @escaping @Sendable () async throws -> Bool
    ) {
        self.address = address
        self.quota = quota
        self.accountID = accountID
        self.sends = sends
        self.standing = standing
    }
}
