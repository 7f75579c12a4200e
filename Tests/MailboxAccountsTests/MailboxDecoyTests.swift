import AuthCrypto
import PosternTestSupport
import Testing

@testable import MailboxAccounts
@testable import PasswordHashing

/// An unknown address must cost what a wrong password costs. Whether it does is measured, not asserted
/// here: `make soak` (Tests/Soak/login-timing.py) compares the medians of 200 sign-ins of each kind
/// against the release server. These tests pin down why it does: both paths run one Argon2 verification
/// of the same shape.
@Suite("Sign-in decoy: an unknown address verifies against a hash shaped like a stored one")
struct MailboxDecoyTests {
    @Test(
        "the decoy has the variant, costs, salt and tag lengths of the hashes the service stores",
        arguments: StorageBackend.allCases)
    func decoyShape(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend, configure: {
            $0.argon2 = Argon2Parameters(memoryKiB: 4096, iterations: 3, parallelism: 1)
        })
        let stored = try Argon2Hash.parse(try await harness.service.hasher.hash("right-password"))
        let decoy = try Argon2Hash.parse(harness.service.hasher.decoy)
        #expect(decoy.variant == stored.variant && decoy.version == stored.version)
        #expect(decoy.memoryKiB == 4096 && decoy.iterations == 3 && decoy.parallelism == 1)
        #expect(decoy.memoryKiB == stored.memoryKiB && decoy.iterations == stored.iterations)
        #expect(decoy.salt.count == stored.salt.count && decoy.hash.count == stored.hash.count)
    }

    @Test(
        "verifying against no stored hash is false even for the decoy's own password",
        arguments: StorageBackend.allCases)
    func decoyNeverMatches(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend, configure: {
            $0.argon2 = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)
        })
        let hasher = harness.service.hasher
        #expect(try await hasher.verify("anything", against: nil) == false)
        let real = try await hasher.hash("pw")
        #expect(try await hasher.verify("pw", against: real))
        #expect(try await hasher.verify("nope", against: real) == false)
    }
}
