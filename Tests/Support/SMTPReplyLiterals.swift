import SMTPOutcomes

extension SMTPReply {
    /// A reply a test writes as a server would send it (`550 5.1.1 No such user`): the code, the enhanced code when
    /// the second word is one, the rest as text. Tests only: Postern's sources never read a reply back from text.
    public init(line: String) {
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        let code = Int(words.first ?? "") ?? 500
        if words.count > 1, let enhanced = EnhancedStatusCode(parsing: words[1]) {
            self.init(code: code, enhanced: enhanced, text: words.count > 2 ? String(words[2]) : "")
        } else {
            self.init(code: code, text: words.dropFirst().joined(separator: " "))
        }
    }
}

extension DeliveryStatus where Delivered == SMTPReply, Failure == DeliveryFailure {
    /// Delivered with the server's `line`.
    public static func accepted(_ line: String) -> Self { .delivered(SMTPReply(line: line)) }

    /// Deferred by the server's `line` to a command about `role` (`RCPT TO` by default).
    public static func temporary(_ line: String, about role: AddressRole? = .recipient) -> Self {
        .deferred(.remote(SMTPReply(line: line), about: role))
    }

    /// Failed by the server's `line` to a command about `role` (`RCPT TO` by default).
    public static func permanent(_ line: String, about role: AddressRole? = .recipient) -> Self {
        .failed(.remote(SMTPReply(line: line), about: role))
    }
}

extension DeliveryStatus {
    /// The case's name (`queued`, `held`, `delivered`, `deferred`, `failed`), for tests that compare lists.
    public var name: String {
        switch self {
        case .queued: "queued"
        case .held: "held"
        case .delivered: "delivered"
        case .deferred: "deferred"
        case .failed: "failed"
        }
    }
}
