/// What sessions report to the server's observer (metrics): messages stored and refused, recipients
/// refused. Reported on the event loop; the observer must be quick and must not block.
public enum SMTPSessionEvent: Sendable, Equatable {
    /// The sink stored a message of `bytes` bytes for `recipients` recipients (`250` sent).
    case messageStored(bytes: Int, recipients: Int)
    /// A message was read to its end and refused.
    case messageRefused(SMTPMessageRefusal)
    /// A `RCPT TO` was refused by the sink's verdict (`unknownLocal` or `relayDenied`).
    case recipientRefused(SMTPRecipientVerdict)
    /// A connection over the cap was told `421` and closed.
    case sessionRefused
    /// A mail transaction ended: its message stored or refused, or abandoned before `DATA`.
    case transactionEnded(SMTPTransactionRecord)
}

/// Why a whole message was refused.
public enum SMTPMessageRefusal: Sendable, Equatable {
    /// Larger than `maxMessageBytes` (`552`).
    case tooLarge
    /// The sink could not store it for now (`451`).
    case notStored
    /// The sink refused it for good (`552 5.2.2`, `554 5.6.0` or `550 5.1.1`).
    case refused(SMTPDeliveryRefusal)
}
