/// A plain-text message an in-process surface sends as one of its accounts (MCP's `send_email`, the web inbox's
/// compose): ``JMAPService/send(_:as:client:requestID:)`` writes it as the `Email/set` draft and the
/// `EmailSubmission/set` a JMAP client sends, so every rule of sending is the method table's, applied once.
public struct SubmissionDraft: Sendable, Equatable {
    /// A file to attach, as a client uploads it (`Blob/upload`).
    public struct Attachment: Sendable, Equatable {
        public var filename: String
        /// `type/subtype`.
        public var contentType: String
        /// The file's bytes in standard Base64.
        public var base64: String

        /// - Parameters: see the properties.
        public init(filename: String, contentType: String, base64: String) {
            self.filename = filename
            self.contentType = contentType
            self.base64 = base64
        }
    }

    /// The recipients' addresses (`a@example.com`), in the order written.
    public var to: [String]
    public var cc: [String] = []
    public var bcc: [String] = []
    public var subject: String
    /// The text part.
    public var body: String
    public var attachments: [Attachment] = []
    /// The Message-IDs it replies to (`In-Reply-To`), without angle brackets.
    public var inReplyTo: [String] = []
    /// The thread's Message-IDs, oldest first (`References`), without angle brackets.
    public var references: [String] = []
    /// Whether the sent copy is filed as a person's own (the web inbox's): written with `$draft`, and on success
    /// `$draft` dropped and `$seen` set by the submission's `onSuccessUpdateEmail`. Otherwise (MCP's) the copy is
    /// left as written, in Sent.
    public var filedAsRead = false

    /// - Parameters: see the properties.
    public init(to: [String], subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }
}
