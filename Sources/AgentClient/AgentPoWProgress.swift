import Foundation

/// Where a proof-of-work search stands, for a progress line: tries so far against the expected 2^difficulty.
public struct AgentPoWProgress: Sendable, Equatable {
    /// Leading zero bits required.
    public let difficulty: Int
    /// Nonces tried so far (every thread together).
    public let attempts: UInt64
    /// Seconds since the search started.
    public let elapsed: Double

    public init(difficulty: Int, attempts: UInt64, elapsed: Double) {
        self.difficulty = difficulty
        self.attempts = attempts
        self.elapsed = elapsed
    }

    /// Tries a search needs on average: each nonce succeeds with probability 2^-difficulty.
    public var expectedAttempts: Double { Double(sign: .plus, exponent: difficulty, significand: 1) }

    /// Tries per second so far; nil before the first try finished.
    public var rate: Double? { attempts > 0 && elapsed > 0 ? Double(attempts) / elapsed : nil }

    /// Seconds the whole search is expected to take at the rate so far.
    public var expectedSeconds: Double? { rate.map { expectedAttempts / $0 } }

    /// What a search of this difficulty is in for: `difficulty 12, about 4096 tries expected`.
    public var expectation: String { "difficulty \(difficulty), about \(Self.count(expectedAttempts)) tries expected" }

    /// One line: difficulty, tries against the expected number, rate, elapsed and expected time.
    public var line: String {
        var text = "solving the proof of work: difficulty \(difficulty), \(attempts) of about "
            + "\(Self.count(expectedAttempts)) expected tries, \(Self.duration(elapsed)) elapsed"
        if let rate, let expected = expectedSeconds {
            text += String(format: ", %.1f tries/s, about %@ expected in all", rate, Self.duration(expected))
        }
        return text
    }

    /// `4096`, `1.0M`: a whole number up to a million, then with a unit.
    static func count(_ value: Double) -> String {
        value < 1_000_000 ? String(Int(value.rounded())) : String(format: "%.1fM", value / 1_000_000)
    }

    /// `0:07`, `12:30`, `2:05:00`: minutes and seconds, hours when needed.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
