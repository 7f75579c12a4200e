/// Argon2id cost parameters for stored passwords (mailbox accounts, owners).
public struct Argon2Parameters: Sendable, Equatable {
    /// Memory in KiB. Default 19,456.
    public var memoryKiB: UInt32
    /// Passes. Default 2.
    public var iterations: UInt32
    /// Lanes. Default 1.
    public var parallelism: UInt32

    /// Creates parameters; defaults are CONTRACT 2's and OWASP's (m=19456, t=2, p=1).
    public init(memoryKiB: UInt32 = 19_456, iterations: UInt32 = 2, parallelism: UInt32 = 1) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }
}
