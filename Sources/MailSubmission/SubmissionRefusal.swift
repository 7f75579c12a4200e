import MIME
import MailDelivery
import SMTPOutcomes
import Time

/// Why ``Submitter/submit(_:now:)`` sent nothing, typed: every door says it in its own words at its edge (JMAP a
/// `SetError`, Mailpit its 400 sentence, the web inbox a notice, MCP a tool error, an SMTP submission listener a
/// reply). Each case notes the SMTP reply it stands for (RFC 5321 4.2, RFC 3463): a 5xx is final, a 4xx frees with
/// time (a limit's window, the queue draining). Decisions switch on the case; ``explanation`` is for display only.
public enum SubmissionRefusal: Error, Sendable, Equatable {
    /// The message (its id) was not written in the sender's own mailbox (a received message, or another mailbox's):
    /// it is never sent on as the sender's mail (issue 81 item 7). SMTP: 550 5.7.1.
    case notWrittenBySender(messageID: String)
    /// The sending address is no mailbox of this server (any more): nothing is sent as it. SMTP: 550 5.7.1.
    case senderNotLocal(String)
    /// The message's header cannot be read strictly (a bare CR or LF, a NUL, an address field read two ways), so
    /// who it is from cannot be checked. SMTP: 550 5.6.0.
    case unreadableHeader(OriginatorError)
    /// An originator field of the message names someone other than `sender` (``OriginatorField``). SMTP: 550 5.7.1.
    case foreignOriginator(OriginatorField, sender: String)
    /// The envelope's sender is not the sending address, `sender`. SMTP: 553 5.7.1.
    case foreignMailFrom(sender: String)
    /// The message and its envelope name no recipient. SMTP: 554 5.5.1.
    case noRecipients
    /// These recipients are not addresses, or are on a domain served here with no such mailbox. SMTP: 550 5.1.1 for
    /// each.
    case unknownRecipients([String])
    /// The sender may not send to other domains now, for this reason, and the submission asked to be refused rather
    /// than kept in the outbox (``SubmissionRequest/HeldPolicy/refuse``). SMTP: 550 5.7.1.
    case held(HeldReason)
    /// The recipients on other domains would pass this limit (the sender's own, or its owner's); it frees by
    /// `freesAt`. SMTP: 450 4.7.1.
    case limit(SendLimitReached)
    /// The message is larger than the queue takes to other domains (`POSTERN_OUTBOUND_MAX_MESSAGE_BYTES`).
    /// SMTP: 552 5.3.4.
    case tooLarge(maxBytes: Int)
    /// The sender's mail waiting in the queue and this message would pass its quota; it frees as the queue delivers.
    /// SMTP: 452 4.2.2.
    case overQuota(queuedBytes: Int64, quota: Int64)

    /// Which originator field names someone else (``SubmissionRefusal/foreignOriginator(_:sender:)``).
    public enum OriginatorField: Sendable, Equatable {
        /// `From`: none, or an address other than the sender's.
        case from
        /// `Sender`: an address other than the sender's.
        case sender
        /// `Resent-From` or `Resent-Sender`: an address other than the sender's.
        case resent
        /// `Reply-To`: another mailbox of a domain served here (addresses elsewhere are allowed).
        case replyTo
    }

    /// The refusal in plain English for the person who submitted (JMAP's `description`, Mailpit's words after
    /// `Failed: `, the operator's release line): for display only, never read back.
    public var explanation: String {
        switch self {
        case .notWrittenBySender(let id):
            "Message \(id) was received by this account, not written in it: send a new message that quotes or attaches "
                + "it instead."
        case .senderNotLocal(let address):
            "\(address) is no longer a mailbox of this server: nothing can be sent as it."
        case .unreadableHeader(let error): "\(error) Nothing was sent."
        case .foreignOriginator(.from, let sender): "The From of the email must be \(sender)."
        case .foreignOriginator(.sender, let sender): "The Sender of the email must be \(sender)."
        case .foreignOriginator(.resent, let sender):
            "The Resent-From and Resent-Sender of the email must be \(sender)."
        case .foreignOriginator(.replyTo, let sender):
            "The Reply-To of the email may name \(sender) or addresses elsewhere, not another mailbox here."
        case .foreignMailFrom(let sender): "mailFrom must be \(sender)."
        case .noRecipients: "The email and envelope name no recipient."
        case .unknownRecipients(let addresses):
            "No such mailbox here: \(addresses.joined(separator: ", ")). Nothing was sent."
        case .held(let reason): "Mail to other domains is held: \(reason.explanation). Nothing was sent."
        case .limit(let reached):
            "The \(reached.limit.name) limit of \(reached.limit.count) recipients on other domains "
                + "\(Self.whose(reached.limit.scope)) is reached; it frees by \(RFC3339.format(reached.freesAt)). "
                + "Nothing was sent."
        case .tooLarge(let maxBytes):
            "The email is larger than the \(maxBytes) bytes this server sends to other domains. Nothing was sent."
        case .overQuota(let queued, let quota):
            "Mail of yours still waiting to leave (\(queued) bytes) and this email would pass your quota of \(quota) "
                + "bytes; it frees as the queue delivers. Nothing was sent."
        }
    }

    /// Whose a limit of `scope` is, in words.
    private static func whose(_ scope: SendLimit.Scope) -> String {
        switch scope {
        case .sender: "per sender"
        case .holder: "for all the inboxes of this inbox's owner together"
        }
    }
}
