/// One client message of a SASL exchange: IMAP's, POP3's or SMTP's.
public struct SASLStep: Sendable, Equatable {
    /// The mechanism, in upper case (one the session offers).
    public var mechanism: String
    /// The client's message.
    public var response: SASLMessage
    /// Whether this is the exchange's first message (the mechanism starts afresh).
    public var isFirst: Bool

    public init(mechanism: String, response: SASLMessage, isFirst: Bool) {
        self.mechanism = mechanism
        self.response = response
        self.isFirst = isFirst
    }
}
