/// What a mail door's sign-in comes to, in the owner's terms; each door's port turns it into its own (IMAP's and
/// POP3's `MailDoorSignInOutcome`).
extension MailSignIn {
    /// The mailbox a credential opened: its address (as the store keys it), the bytes it may hold, how the credential
    /// is checked again while the session lasts, the account's id (JMAP's accountId, under which a submission is
    /// recorded) and whether the holder may send from it.
    public struct Mailbox: Sendable {
        public let address: String
        public let quota: Int64
        public let standing: Standing
        /// JMAP's accountId of the mailbox (an agent's, a Mail.td account's, an owner's inbox's).
        public let accountID: String
        /// Whether the credential may send from the mailbox: false for a Mail.td account (read-only, as on Mail.td).
        public let sends: Bool
    }

    /// Why a session must end now; nil from a ``Standing`` while it may go on.
    public enum SessionEnd: Sendable, Equatable {
        /// The password was changed (or the account's tokens were otherwise reset).
        case credentialChanged
        /// The credential (an API token, an API key, an access token or its grant) was revoked or expired.
        case credentialRevoked
        /// The account was deleted.
        case accountDeleted
    }

    /// The credential checked again, by what identifies the account and the credential (the account's id and token
    /// epoch, the Pro token, the key, the grant), never the address alone.
    /// - Throws: storage errors (the door decides what a failed check means).
    public typealias Standing = @Sendable () async throws -> SessionEnd?

    /// Why an access token was refused, as RFC 7628's error JSON tells the client (`status`).
    public enum TokenRefusal: Sendable, Equatable {
        /// Expired, revoked, forged, for another resource, or not the holder of the inbox named: `invalid_token`.
        case invalidToken
        /// Valid, but without the door's scope (`mail.read`, or `mail.send` at the submission door):
        /// `insufficient_scope`.
        case insufficientScope
    }

    /// What a sign-in came to.
    public enum Outcome: Sendable {
        case signedIn(Mailbox)
        /// Wrong user or password (one answer for both).
        case refused
        /// An access token that opens no mailbox.
        case tokenRefused(TokenRefusal)
        /// Too many attempts from this client, or failures for this user, lately: try later.
        case throttled
    }
}
