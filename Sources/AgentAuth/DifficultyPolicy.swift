import AgentPoW

/// How hard a challenge is, given how many challenges its client address asked for recently
/// (CONTRACT.md 1.2).
///
/// Up to ``freeChallenges`` challenges in the window get the base difficulty; beyond that, one bit
/// is added for each doubling: 11–20 challenges +1, 21–40 +2, 41–80 +3, and so on, capped at the
/// maximum. The window is ``windowSeconds`` long.

public struct DifficultyPolicy: Sendable, Equatable {
    /// Challenges per address and window that cost nothing extra.
    public static let freeChallenges = 10
    /// Length of the counting window in seconds.
    public static let windowSeconds: Int64 = 60

    /// Difficulty below any raise.
    public let base: Int
    /// Cap of the raise; never below ``base``.
    public let maximum: Int
    /// When false, ``difficulty(recentChallenges:)`` always answers ``base``.
    public let dynamic: Bool

    /// Creates a policy; `base` is clamped to `0...512` and `maximum` to `base...512`.
    public init(base: Int, maximum: Int, dynamic: Bool) {
        self.base = min(max(base, 0), AgentProofOfWork.maximumDifficulty)
        self.maximum = min(max(maximum, self.base), AgentProofOfWork.maximumDifficulty)
        self.dynamic = dynamic
    }

    /// The difficulty of a challenge that is the `recentChallenges`-th one (this one included) its
    /// client address asked for within the window.
    public func difficulty(recentChallenges: Int) -> Int {
        guard dynamic, recentChallenges > Self.freeChallenges else { return base }
        // Smallest k with count <= free * 2^k: the number of doublings begun beyond the free allowance.
        var extra = 0
        var threshold = Self.freeChallenges
        while recentChallenges > threshold, base + extra < maximum {
            extra += 1
            threshold = threshold > Int.max / 2 ? Int.max : threshold * 2
        }
        return min(base + extra, maximum)
    }
}
