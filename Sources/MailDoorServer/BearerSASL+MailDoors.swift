import SASL

/// IMAP's and POP3's words for a refused token, in RFC 7628's error JSON: both read mail, so the scope they need is
/// `mail.read`.
extension BearerSASL {
    /// The error challenge of `refusal` at a door that reads mail.
    package static func errorChallenge(_ refusal: MailTokenRefusal) -> SASLMessage {
        errorChallenge(refusal == .insufficientScope ? .insufficientScope : .invalidToken, scope: "mail.read")
    }
}
