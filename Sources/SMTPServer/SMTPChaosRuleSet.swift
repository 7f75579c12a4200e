/// The randomness a rule set draws from: a stream of 64-bit numbers. ``SMTPChaosSeededRandom`` in service; a test
/// gives its own.
public protocol SMTPChaosRandom: Sendable {
    /// The next number.
    mutating func next() -> UInt64
}

/// SplitMix64 (Steele, Lea and Flood, 2014) from a seed: the same seed gives the same numbers on every run and
/// machine, so a rule set with a probability and a seed refuses the same recipients each time.
public struct SMTPChaosSeededRandom: SMTPChaosRandom {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Where a session stands when it asks the rules: the stage and what the session knows there.
public struct SMTPChaosPoint: Sendable, Equatable {
    public var stage: SMTPChaosRule.Stage
    /// The transaction's `MAIL FROM` path (from the `mail` stage on), else nil.
    public var mailFrom: String?
    /// At `rcpt` the one being given; at `data` and after it every accepted one; else empty.
    public var recipients: [String]

    public init(_ stage: SMTPChaosRule.Stage, mailFrom: String? = nil, recipients: [String] = []) {
        self.stage = stage
        self.mailFrom = mailFrom
        self.recipients = recipients
    }
}

/// The rules of one scope (the server's, or one Pro user's sandbox) and what is left of them, as a pure value: asked
/// at a point of a session, it answers the first rule, in the order given, that matches the point and whose draw
/// comes up, and counts that rule's ``SMTPChaosRule/times`` down.
///
/// A rule is drawn for (one number from ``random``) only when it matches and its probability is between 1 and 99,
/// so the numbers a run draws, and with a seed the faults it sees, depend only on the sessions it makes.
public struct SMTPChaosRuleSet<Random: SMTPChaosRandom>: Sendable {
    /// The rules in order.
    public let rules: [SMTPChaosRule]
    /// How many more times each rule fires (nil: unlimited), by index.
    public private(set) var remaining: [Int?]
    var random: Random

    /// - Parameters:
    ///   - rules: at most ``SMTPChaosRule/Limits/maxRules``.
    ///   - random: the source probabilities draw from.
    public init(_ rules: [SMTPChaosRule], random: Random) {
        self.rules = Array(rules.prefix(SMTPChaosRule.Limits.maxRules))
        remaining = self.rules.map(\.times)
        self.random = random
    }

    /// Whether any rule can still fire.
    public var isLive: Bool { remaining.indices.contains { rules[$0].probability > 0 && remaining[$0] != 0 } }

    /// What happens at `point`: the first live rule that matches it and comes up, counted; nil when none does.
    public mutating func decide(_ point: SMTPChaosPoint) -> SMTPChaosRule.Action? {
        for index in rules.indices where remaining[index] != 0 {
            let rule = rules[index]
            guard rule.stage == point.stage, rule.probability > 0 else { continue }
            if let pattern = rule.mailFrom, !(point.mailFrom.map(pattern.matches) ?? false) { continue }
            if let pattern = rule.recipient, !point.recipients.contains(where: pattern.matches) { continue }
            if rule.probability < 100, random.next() % 100 >= UInt64(rule.probability) { continue }
            if let left = remaining[index] { remaining[index] = left - 1 }
            return rule.action
        }
        return nil
    }
}
