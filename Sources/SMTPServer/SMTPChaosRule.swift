/// One failure to inject into SMTP sessions (issue 71 item 4): where in the session (``Stage``), which sessions (the
/// `MAIL FROM` and `RCPT TO` patterns), what happens (``Action``), how often (``probability``, out of 100, drawn from
/// the rule set's seeded source) and how many times (``times``, then the rule is spent).
///
/// Checked when made (``init(stage:action:mailFrom:recipient:probability:times:)``): the limits are
/// ``SMTPChaosRule/Limits``'s, and a pattern is only allowed where the session knows what it matches (the sender from
/// the `mail` stage on, a recipient from `rcpt` on).
public struct SMTPChaosRule: Sendable, Equatable {
    /// Where in a session a rule acts.
    public enum Stage: String, Sendable, Equatable, CaseIterable {
        /// The connection opened: instead of the `220` greeting.
        case connect
        /// `HELO` or `EHLO`: instead of its `250`.
        case helo
        /// A successful `AUTH` (the sandbox): instead of `235`; the session stays unauthenticated.
        case auth
        /// `MAIL FROM`: instead of `250 2.1.0`; no transaction starts.
        case mail
        /// `RCPT TO`: instead of asking the mail store; the recipient is not added.
        case rcpt
        /// `DATA`: instead of `354`; no message text is read.
        case data
        /// The message text has ended: instead of storing it; nothing is stored.
        case afterData = "after-data"
    }

    /// What a rule does when it fires.
    public enum Action: Sendable, Equatable {
        /// Answer `code` (400 to 599) with `enhanced` (RFC 3463, its class the code's first digit) and `text`. A `421`
        /// closes the session after the reply, as RFC 5321 says it must.
        case reply(code: Int, enhanced: EnhancedCode?, text: String)
        /// Close the connection without a word.
        case disconnect
        /// Wait this many seconds, then go on as if no rule had fired.
        case stall(seconds: Int)

        /// The action's name in metrics and JSON: `reply`, `disconnect` or `stall`.
        public var name: String {
            switch self {
            case .reply: "reply"
            case .disconnect: "disconnect"
            case .stall: "stall"
            }
        }
    }

    /// An RFC 3463 enhanced status code, `class.subject.detail`.
    public struct EnhancedCode: Sendable, Equatable, CustomStringConvertible {
        public let `class`: Int
        public let subject: Int
        public let detail: Int

        /// `text` as `4.2.1`; nil when it is not three numbers (the class 2, 4 or 5, the others 0 to 999).
        public init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) }),
                let first = Int(parts[0]), let second = Int(parts[1]), let third = Int(parts[2]),
                [2, 4, 5].contains(first)
            else { return nil }
            self.class = first
            subject = second
            detail = third
        }

        public var description: String { "\(self.class).\(subject).\(detail)" }
    }

    /// What a rule and a rule set may hold. Every bound is checked when a rule is made.
    public enum Limits {
        /// Most rules in one set (one scope): 100.
        public static let maxRules = 100
        /// Longest stall: 300 s, the command timeout a client waits by RFC 5321's advice.
        public static let maxStallSeconds = 300
        /// Longest pattern and reply text: 256 characters.
        public static let maxTextLength = 256
        /// Most times a rule fires before it is spent: 1,000,000.
        public static let maxTimes = 1_000_000
    }

    /// Why a rule cannot be made; `field` names what is wrong (the JSON member a surface reads it from).
    public struct Invalid: Error, Sendable, Equatable {
        public let field: String
        public let message: String

        public init(_ field: String, _ message: String) {
            self.field = field
            self.message = message
        }
    }

    public let stage: Stage
    public let action: Action
    /// A pattern the `MAIL FROM` path must match (``SMTPChaosPattern``); nil for any.
    public let mailFrom: SMTPChaosPattern?
    /// A pattern a `RCPT TO` path must match (at `rcpt` that recipient, later any accepted one); nil for any.
    public let recipient: SMTPChaosPattern?
    /// Out of 100, the chance the rule fires when it matches (100: always). Drawn from the set's seeded source.
    public let probability: Int
    /// How many times the rule fires before it is spent; nil: every time.
    public let times: Int?

    /// A checked rule.
    /// - Throws: ``Invalid`` naming the field out of its range or not allowed at `stage`.
    public init(
        stage: Stage, action: Action, mailFrom: String? = nil, recipient: String? = nil, probability: Int = 100,
        times: Int? = nil
    ) throws(Invalid) {
        switch action {
        case .reply(let code, let enhanced, let text):
            guard (400...599).contains(code) else { throw Invalid("code", "code must be from 400 to 599") }
            if let enhanced, enhanced.class != code / 100 {
                throw Invalid("enhanced_code", "enhanced_code's class must be the code's first digit")
            }
            guard text.count <= Limits.maxTextLength, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E })
            else { throw Invalid("text", "text must be printable ASCII, at most \(Limits.maxTextLength) characters") }
        case .disconnect:
            break
        case .stall(let seconds):
            guard (1...Limits.maxStallSeconds).contains(seconds) else {
                throw Invalid("seconds", "seconds must be from 1 to \(Limits.maxStallSeconds)")
            }
        }
        guard (0...100).contains(probability) else { throw Invalid("probability", "probability must be from 0 to 100") }
        if let times, !(1...Limits.maxTimes).contains(times) {
            throw Invalid("times", "times must be from 1 to \(Limits.maxTimes)")
        }
        if mailFrom != nil, [.connect, .helo, .auth].contains(stage) {
            throw Invalid("mail_from", "mail_from is known from the mail stage on")
        }
        if recipient != nil, [.connect, .helo, .auth, .mail].contains(stage) {
            throw Invalid("rcpt_to", "rcpt_to is known from the rcpt stage on")
        }
        self.stage = stage
        self.action = action
        self.mailFrom = try mailFrom.map { text throws(Invalid) in try SMTPChaosPattern(text, field: "mail_from") }
        self.recipient = try recipient.map { text throws(Invalid) in try SMTPChaosPattern(text, field: "rcpt_to") }
        self.probability = probability
        self.times = times
    }
}

/// An address pattern: `*` stands for any run of characters, `?` for one; everything else matches itself, ASCII
/// letters in either case (`*@example.com`, `bounce-?@*`, `ann@example.org`).
public struct SMTPChaosPattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    public let description: String
    private let folded: [UInt8]

    /// - Throws: ``SMTPChaosRule/Invalid`` naming `field` for an empty or overlong pattern.
    init(_ text: String, field: String) throws(SMTPChaosRule.Invalid) {
        guard !text.isEmpty, text.count <= SMTPChaosRule.Limits.maxTextLength else {
            throw SMTPChaosRule.Invalid(field, "\(field) must be 1 to \(SMTPChaosRule.Limits.maxTextLength) characters")
        }
        description = text
        folded = Self.fold(text)
    }

    /// Whether `address` matches.
    public func matches(_ address: String) -> Bool {
        let subject = Self.fold(address)
        // The classic two-pointer glob: on a mismatch after a `*`, let the star take one more character.
        var (p, s) = (0, 0)
        var star: (pattern: Int, subject: Int)?
        while s < subject.count {
            if p < folded.count, folded[p] == UInt8(ascii: "?") || folded[p] == subject[s] {
                p += 1
                s += 1
            } else if p < folded.count, folded[p] == UInt8(ascii: "*") {
                star = (p, s)
                p += 1
            } else if let last = star {
                p = last.pattern + 1
                s = last.subject + 1
                star = (last.pattern, last.subject + 1)
            } else {
                return false
            }
        }
        while p < folded.count, folded[p] == UInt8(ascii: "*") { p += 1 }
        return p == folded.count
    }

    private static func fold(_ text: String) -> [UInt8] {
        text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }
    }
}
