/// A person who signs in with email and password and holds agent inboxes (issue 28).
public struct Owner: Sendable, Equatable {
    /// Lowercase UUID: the `sub` of the access tokens the owner's grants issue (never the email).
    public let id: String
    /// The sign-in email, lower-cased.
    public let email: String
    /// When the owner was created, Unix seconds.
    public let createdAt: Int64
    /// When the operator made or approved the owner (``OwnerApprovals``), Unix seconds; nil for an owner who signed up
    /// themselves and waits: with `POSTERN_OUTBOUND_SENDERS=owned` their inboxes send nothing outside until then.
    public let approvedAt: Int64?

    public init(id: String, email: String, createdAt: Int64, approvedAt: Int64? = nil) {
        self.id = id
        self.email = email
        self.createdAt = createdAt
        self.approvedAt = approvedAt
    }
}

/// How a sign-in ended. A wrong password and an unknown email are the same ``refused``, and cost the same.
public enum OwnerSignIn: Sendable, Equatable {
    /// Email and password match.
    case signedIn(Owner)
    /// They do not (or no owner has that email).
    case refused
    /// Too many failures for this email lately: try again after `retryAfter` seconds. The password was not checked.
    case slowDown(retryAfter: Int64)
}

/// Why an owner could not be created.
public enum OwnerError: Error, Equatable, Sendable {
    /// Not an email address (one `@`, a local part and a domain with a dot, at most 254 bytes, no spaces).
    case invalidEmail
    /// Shorter than ``OwnerCredentials/minimumPasswordLength`` characters or longer than 1,024 bytes.
    case weakPassword
    /// Another owner has that email.
    case emailTaken
}
