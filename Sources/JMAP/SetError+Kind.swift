extension SetError {
    /// The kinds of `/set` refusal this server writes (RFC 8620 section 5.3, RFC 8621 sections 2.3, 4.6, 7.5);
    /// the raw value is the wire `type`. Decisions read the kind; the wire name is made only when the answer is written.
    public enum Kind: String, Sendable, CaseIterable {
        /// The caller may not do this (a `mail.send`-only grant writing mail).
        case forbidden
        /// The object would pass the account's quota.
        case overQuota
        /// The object is larger than the server takes (`maxSize` says how large may be sent).
        case tooLarge
        /// Too many objects of this kind created too quickly.
        case rateLimit
        /// No such object in this account.
        case notFound
        /// A property is missing, unknown or has a bad value (`properties` names them).
        case invalidProperties
        /// A blob the object names does not exist (`notFound` lists them).
        case blobNotFound
        /// `Blob/upload` was given more data sources than the server takes.
        case tooManyDataSources
        /// The Email's keywords would pass a cap: on the message, or distinct in the account (RFC 8621 4.6).
        case tooManyKeywords
        /// The email to submit does not exist or cannot be sent as it is.
        case invalidEmail
        /// The envelope's `mailFrom` is not an address the caller may send from.
        case forbiddenMailFrom
        /// The email's `From` or `Sender` is not an address the caller may send from.
        case forbiddenFrom
        /// A sending limit refused the submission.
        case forbiddenToSend
        /// Neither the email nor the envelope names a recipient.
        case noRecipients
        /// Recipients that cannot be sent to (`invalidRecipients` lists them).
        case invalidRecipients
        /// A submission cannot be changed or cancelled: this server's are final at once.
        case cannotUnsend
        /// A mailbox with mailboxes under it cannot be destroyed (RFC 8621 §2.5).
        case mailboxHasChild
        /// A mailbox holding messages is destroyed only with `onDestroyRemoveEmails` (RFC 8621 §2.5).
        case mailboxHasEmail
    }
}
