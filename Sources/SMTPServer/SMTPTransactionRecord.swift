/// What one mail transaction was, for the log line the server's owner writes (``SMTPSessionEvent/transactionEnded(_:)``):
/// the envelope and every reply that mattered, never the message's text.
public struct SMTPTransactionRecord: Sendable, Equatable {
    /// One `RCPT TO` and the code it was answered with.
    public struct RecipientReply: Sendable, Equatable {
        /// The forward path without angle brackets.
        public var address: String
        /// `250`, `550`, `452`, ...
        public var code: Int

        /// - Parameters:
        ///   - address: the forward path.
        ///   - code: the reply code it got.
        public init(address: String, code: Int) {
            self.address = address
            self.code = code
        }
    }

    /// The client's IP address as text.
    public var client: String
    /// The `MAIL FROM` reverse path; empty for the null path.
    public var mailFrom: String
    /// Every `RCPT TO` of the transaction with its reply code, in order.
    public var recipients: [RecipientReply]
    /// The queue id of the stored message (`250 2.0.0 OK queued as <id>`); nil when nothing was stored.
    public var messageID: String?
    /// Bytes of message text read; nil when the transaction ended before `DATA`.
    public var size: Int?
    /// The code that ended the message (`250`, `451`, `552`, ...); nil when the transaction ended before its message
    /// (`RSET`, `QUIT`, a new greeting, `STARTTLS`, or a closed connection).
    public var result: Int?

    /// Creates a record.
    public init(
        client: String, mailFrom: String, recipients: [RecipientReply], messageID: String? = nil, size: Int? = nil,
        result: Int? = nil
    ) {
        self.client = client
        self.mailFrom = mailFrom
        self.recipients = recipients
        self.messageID = messageID
        self.size = size
        self.result = result
    }
}
