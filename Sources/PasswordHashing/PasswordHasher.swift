import AuthCrypto
import ComputePool

/// Argon2id hashing and verification on the worker pool, with a decoy for unknown users: stored passwords of
/// mailbox accounts and owners.
public struct PasswordHasher: Sendable {
    public let parameters: Argon2Parameters
    public let pool: WorkerPool
    /// Verified when the user does not exist, so that an unknown address takes as long as a wrong
    /// password: the same variant, costs and tag length as a stored hash, a random salt and a random tag.
    ///
    /// Verification recomputes the tag from the password, salt and costs and only then compares, so
    /// its cost does not depend on the tag being the hash of anything; a random tag therefore costs
    /// exactly what a real decoy hash would, without running Argon2 (tens of ms, 19 MiB) at start-up.
    /// The answer for the decoy is always false whatever the comparison says (see `verify`).
    let decoy: String

    public init(parameters: Argon2Parameters, pool: WorkerPool) {
        self.parameters = parameters
        self.pool = pool
        self.decoy = Argon2Hash(
            variant: .id, version: 19, memoryKiB: parameters.memoryKiB, iterations: parameters.iterations,
            parallelism: parameters.parallelism, salt: SecureRandom.bytes(16),
            hash: SecureRandom.bytes(Self.tagLength)
        ).encoded
    }

    /// Tag length of every hash this surface makes, in bytes.
    public static let tagLength = 32

    /// Hashes a new password (16 random salt bytes, 32-byte hash) on the pool.
    public func hash(_ password: String) async throws -> String {
        let parameters = parameters
        return try await pool.run(.passwordHash) { try Self.hashNow(Array(password.utf8), parameters) }
    }

    /// Verifies `password` against `encoded`; with `encoded == nil` verifies against the decoy and
    /// returns false, costing the same.
    public func verify(_ password: String, against encoded: String?) async throws -> Bool {
        let target = encoded ?? decoy
        let matched = try await pool.run(.passwordHash) { try Argon2.verify(encoded: target, password: Array(password.utf8)) }
        return encoded != nil && matched
    }

    private static func hashNow(_ password: [UInt8], _ parameters: Argon2Parameters) throws -> String {
        try Argon2.hash(
            password: password, salt: SecureRandom.bytes(16), variant: .id, memoryKiB: parameters.memoryKiB,
            iterations: parameters.iterations, parallelism: parameters.parallelism, length: tagLength)
    }
}
