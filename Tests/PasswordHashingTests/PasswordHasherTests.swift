import AuthCrypto
import ComputePool
import Testing

@testable import PasswordHashing

@Suite("Password hasher: the unknown-user decoy")
struct PasswordHasherTests {
    static let parameters = Argon2Parameters(memoryKiB: 1024, iterations: 2, parallelism: 1)

    /// The decoy must cost what a stored hash costs: same variant, version, costs and tag length.
    @Test("the decoy has the variant, version, costs and tag length of a stored hash")
    func decoyMatchesStoredHashShape() async throws {
        let hasher = PasswordHasher(parameters: Self.parameters, pool: WorkerPool(threads: 1))
        let stored = try Argon2Hash.parse(try await hasher.hash("a password"))
        let decoy = try Argon2Hash.parse(hasher.decoy)
        #expect(decoy.variant == stored.variant)
        #expect(decoy.version == stored.version)
        #expect(decoy.memoryKiB == stored.memoryKiB)
        #expect(decoy.iterations == stored.iterations)
        #expect(decoy.parallelism == stored.parallelism)
        #expect(decoy.salt.count == stored.salt.count)
        #expect(decoy.hash.count == stored.hash.count)
    }

    @Test("an unknown user never verifies, a known one does with the right password only")
    func decoyNeverMatches() async throws {
        let hasher = PasswordHasher(parameters: Self.parameters, pool: WorkerPool(threads: 1))
        let stored = try await hasher.hash("right")
        #expect(try await hasher.verify("right", against: stored))
        #expect(try await !hasher.verify("wrong", against: stored))
        #expect(try await !hasher.verify("right", against: nil))
    }

    @Test("two hashers get different decoy salts")
    func decoySaltsDiffer() throws {
        let first = PasswordHasher(parameters: Self.parameters, pool: WorkerPool(threads: 1))
        let second = PasswordHasher(parameters: Self.parameters, pool: WorkerPool(threads: 1))
        #expect(try Argon2Hash.parse(first.decoy).salt != Argon2Hash.parse(second.decoy).salt)
    }
}
