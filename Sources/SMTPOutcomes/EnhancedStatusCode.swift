/// An RFC 3463 enhanced mail system status code, `class.subject.detail` (`5.1.1`): what a decision reads instead of
/// the words of a reply.
public struct EnhancedStatusCode: Sendable, Hashable, CustomStringConvertible {
    /// `2` success, `4` persistent transient failure, `5` permanent failure.
    public let statusClass: Int
    /// What the status is about: `1` addressing, `2` mailbox, `3` mail system, `4` network and routing, `5` mail
    /// delivery protocol, `6` message content, `7` security or policy.
    public let subject: Int
    /// The detail within the subject (`1` in `5.1.1`, bad destination mailbox address).
    public let detail: Int

    /// A code from its three numbers; nil unless the class is 2, 4 or 5 and subject and detail are 0 to 999.
    public init?(statusClass: Int, subject: Int, detail: Int) {
        guard [2, 4, 5].contains(statusClass), (0...999).contains(subject), (0...999).contains(detail) else {
            return nil
        }
        self.statusClass = statusClass
        self.subject = subject
        self.detail = detail
    }

    /// A code a server wrote (`5.1.10`), nil when the text is not one.
    public init?<Text: StringProtocol>(parsing text: Text) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 1,
            parts.allSatisfy({ (1...3).contains($0.count) && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let first = Int(parts[0]), let second = Int(parts[1]), let third = Int(parts[2])
        else { return nil }
        self.init(statusClass: first, subject: second, detail: third)
    }

    /// Whether the status is about an address (subject 1, RFC 3463 §3.2: bad mailbox, bad domain, null MX...).
    public var isAddressingStatus: Bool { subject == 1 }

    /// The code with the class made permanent (`4.4.7` becomes `5.4.7`): a message that outlived the queue.
    public var permanent: EnhancedStatusCode {
        EnhancedStatusCode(statusClass: 5, subject: subject, detail: detail) ?? self
    }

    /// `5.1.1`.
    public var description: String { "\(statusClass).\(subject).\(detail)" }
}
