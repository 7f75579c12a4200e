import AuthCrypto
import ComputePool

/// Argon2id hashing and verification on the worker pool, with a decoy for unknown users.
struct PasswordHasher: Sendable {
    let parameters: MailboxArgon2Parameters
    let pool: WorkerPool
    /// A hash of a random password with the same cost, verified when the user does not exist so that an
    /// unknown address takes as long as a wrong password.
    let decoy: String

    init(parameters: MailboxArgon2Parameters, pool: WorkerPool) throws {
        self.parameters = parameters
        self.pool = pool
        self.decoy = try Self.hashNow(SecureRandom.bytes(16), parameters)
    }

    /// Hashes a new password (16 random salt bytes, 32-byte hash) on the pool.
    func hash(_ password: String) async throws -> String {
        let parameters = parameters
        return try await pool.run { try Self.hashNow(Array(password.utf8), parameters) }
    }

    /// Verifies `password` against `encoded`; with `encoded == nil` verifies against the decoy and
    /// returns false, costing the same.
    func verify(_ password: String, against encoded: String?) async throws -> Bool {
        let target = encoded ?? decoy
        let matched = try await pool.run { try Argon2.verify(encoded: target, password: Array(password.utf8)) }
        return encoded != nil && matched
    }

    private static func hashNow(_ password: [UInt8], _ parameters: MailboxArgon2Parameters) throws -> String {
        try Argon2.hash(
            password: password, salt: SecureRandom.bytes(16), variant: .id, memoryKiB: parameters.memoryKiB,
            iterations: parameters.iterations, parallelism: parameters.parallelism, length: 32)
    }
}
