import MailSubmission

extension SetError {
    /// The `EmailSubmission/set` refusal (RFC 8621 7.5) of a ``SubmissionRefusal``: its kind by case, its
    /// ``SubmissionRefusal/explanation`` as the description, `invalidRecipients` and `maxSize` where RFC 8621 names
    /// them.
    /// - Parameter given: the `emailId` as the client gave it, which a refusal of the message names.
    init(_ refusal: SubmissionRefusal, emailID given: String) {
        switch refusal {
        case .notWrittenBySender:
            self.init(
                .invalidEmail,
                description: "Email \(given) was received by this account, not written in it: send a new Email that "
                    + "quotes or attaches it instead.")
        case .unreadableHeader: self.init(.invalidEmail, description: refusal.explanation)
        case .senderNotLocal, .foreignOriginator: self.init(.forbiddenFrom, description: refusal.explanation)
        case .foreignMailFrom: self.init(.forbiddenMailFrom, description: refusal.explanation)
        case .noRecipients: self.init(.noRecipients, description: refusal.explanation)
        case .unknownRecipients(let addresses):
            self.init(.invalidRecipients, description: refusal.explanation, invalidRecipients: addresses)
        case .held, .limit: self.init(.forbiddenToSend, description: refusal.explanation)
        case .tooLarge(let maxBytes): self.init(.tooLarge, description: refusal.explanation, maxSize: maxBytes)
        case .overQuota: self.init(.overQuota, description: refusal.explanation)
        }
    }
}
