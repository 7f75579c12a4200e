import MailSubmission
import SMTPServer

/// The submission's refusals in SMTP's words, at this door's edge: each ``SubmissionRefusal`` as the reply code and
/// RFC 3463 enhanced status code its case names (RFC 5321 4.2: a 5xx is final, a 4xx frees with time), the
/// explanation for display.
extension SubmissionRefusal {
    /// The reply the submission listener sends for this refusal.
    var smtpReply: SMTPSinkReply {
        switch self {
        case .notWrittenBySender, .senderNotLocal, .foreignOriginator, .held:
            SMTPSinkReply(550, 7, 1, explanation)
        case .unreadableHeader: SMTPSinkReply(550, 6, 0, explanation)
        case .foreignMailFrom(let sender):
            SMTPSinkReply(553, 7, 1, "This session sends as \(sender) only: MAIL FROM must be that address.")
        case .noRecipients: SMTPSinkReply(554, 5, 1, explanation)
        case .unknownRecipients: SMTPSinkReply(550, 1, 1, explanation)
        case .limit: SMTPSinkReply(450, 7, 1, explanation)
        case .tooLarge: SMTPSinkReply(552, 3, 4, explanation)
        case .overQuota: SMTPSinkReply(452, 2, 2, explanation)
        }
    }
}
