import JSON
import MailDelivery

/// What ``JMAPService/send(_:as:client:requestID:)`` sent: the email (in Sent) and its submission.
public struct SentMessage: Sendable {
    /// The email's id.
    public let emailID: String
    /// The email's thread.
    public let threadID: String
    /// The EmailSubmission's id.
    public let submissionID: String
    /// The submission's `deliveryStatus` as `EmailSubmission/set` answered it (RFC 8621 7: each recipient's
    /// `smtpReply`, `delivered`, `displayed`).
    public let deliveryStatus: JSONValue
    /// Each recipient's status as the ledger recorded it; nil when the ledger has no such
    /// submission.
    public let recipients: [RecipientState]?
}

/// Which call of a send refused or failed.
public enum SendStep: Sendable, Equatable {
    /// `Blob/upload` of the attachments.
    case attachments
    /// The `Email/set` draft.
    case draft
    /// The `EmailSubmission/set`.
    case submission
}

/// Why ``JMAPService/send(_:as:client:requestID:)`` sent nothing; a draft it had made is destroyed again.
public enum SendFailure: Error, Sendable {
    /// A step refused its object (RFC 8620 5.3), as a JMAP client would read it.
    case refused(SendStep, SetError)
    /// A step answered a method-level error (RFC 8620 3.6.2): its type and description.
    case failed(SendStep, type: String, description: String)
}
