import SASL

/// What a client gave `AUTH` on a submission listener (``SMTPServerConfiguration/submission``): a password
/// (`PLAIN`, `LOGIN`) or an OAuth access token (`XOAUTH2`, `OAUTHBEARER`, RFC 7628), for the sink to check.
public enum SMTPAuthCredentials: Sendable, Equatable {
    /// A user name and password.
    case password(username: String, password: String)
    /// An access token, with the user the client named (none: the token's own).
    case bearer(username: String?, token: String)
}

/// A sign-in the submission sink made (``SMTPMailSink/signIn(_:client:)``), which the session holds and hands back
/// with each later question (``SMTPMailSink/admit(mailFrom:as:)``, ``SMTPEnvelope/signIn``): the session reads only
/// ``identity``; ``held`` is the sink's own (the mailbox, the credential's standing) and opaque here. Two are equal when
/// they name the same identity.
public final class SMTPSignIn: Sendable, Equatable, CustomStringConvertible {
    /// Who signed in, as the trace field and the transaction log may name it (the mailbox's address).
    public let identity: String
    /// What the sink keeps of the sign-in.
    public let held: any Sendable

    /// - Parameters: see the properties.
    public init(identity: String, held: any Sendable) {
        self.identity = identity
        self.held = held
    }

    public static func == (a: SMTPSignIn, b: SMTPSignIn) -> Bool { a.identity == b.identity }

    public var description: String { identity }
}

/// What a submission sign-in came to.
public enum SMTPSignInOutcome: Sendable, Equatable {
    /// Signed in: `235 2.7.0`.
    case signedIn(SMTPSignIn)
    /// Wrong user or password (one answer for both): `535 5.7.8`, counted toward the session's failures.
    case refused
    /// An access token that opens nothing here: RFC 7628's `334` with this error JSON (base64), then, at the client's
    /// answer, `535 5.7.8`.
    case tokenRefused(errorChallenge: SASLMessage)
    /// Too many failures lately, or the store cannot answer now: `454 4.7.0`, try later.
    case unavailable
}

/// What the sink says of a `MAIL FROM` of a signed-in session (``SMTPMailSink/admit(mailFrom:as:)``).
public enum SMTPSenderVerdict: Sendable, Equatable {
    /// The transaction begins: `250 2.1.0`.
    case accept
    /// The credential was revoked, changed or its account deleted since `AUTH`: `530 5.7.0`, and the session must
    /// authenticate again.
    case signInEnded
    /// Refused with the sink's reply (a read-only mailbox, another sender's address); the session stays signed in.
    case refused(SMTPSinkReply)
}
