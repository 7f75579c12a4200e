import AuthCrypto
import Synchronization

/// What a login for an unknown email does instead of fetching and verifying, so that it takes as long
/// as a wrong password for a known one (CONTRACT 3.4: the same message, and no timing difference that
/// tells an attacker which emails are registered).
///
/// A known email's login costs one fetch of its hash URL plus one Argon2 verification at that hash's
/// costs. The decoy remembers the last ``capacity`` real logins (how long the fetch took, and the hash's
/// variant, costs, salt and tag lengths) and replays one chosen at random: it waits as long as that
/// fetch took, then verifies the password against a random hash of the same shape (the verification
/// recomputes the tag before comparing, so a random tag costs what a real one does). An unknown email
/// therefore draws its duration from the same distribution as recent known-email logins. Before any
/// real login it verifies at ``fallback``'s costs without waiting.
final class LoginDecoy: Sendable {
    /// One real login's cost.
    struct Sample: Sendable, Equatable {
        var fetch: Duration
        var shape: Argon2Hash
    }

    /// How many recent logins are remembered.
    static let capacity = 64

    /// Used until the first real login: RFC 9106's second recommended option as OWASP sizes it
    /// (Argon2id, 19 MiB, 2 passes, 1 lane), 16-byte salt, 32-byte tag.
    static let fallback = Argon2Hash(
        variant: .id, version: 19, memoryKiB: 19_456, iterations: 2, parallelism: 1,
        salt: [UInt8](repeating: 0, count: 16), hash: [UInt8](repeating: 0, count: 32))

    private let recent = Mutex<(samples: [Sample], next: Int)>(([], 0))

    /// Remembers a known email's login: how long fetching its hash took, and the hash it got.
    func record(fetch: Duration, hash: Argon2Hash) {
        recent.withLock { state in
            let sample = Sample(fetch: fetch, shape: hash)
            if state.samples.count < Self.capacity {
                state.samples.append(sample)
            } else {
                state.samples[state.next] = sample
            }
            state.next = (state.next + 1) % Self.capacity
        }
    }

    /// A remembered login chosen at random, with fresh random salt and tag of the same lengths; the
    /// fallback costs and no wait before any login was remembered.
    func sample() -> Sample {
        let chosen = recent.withLock { $0.samples.randomElement() } ?? Sample(fetch: .zero, shape: Self.fallback)
        var shape = chosen.shape
        shape.salt = SecureRandom.bytes(shape.salt.count)
        shape.hash = SecureRandom.bytes(shape.hash.count)
        return Sample(fetch: chosen.fetch, shape: shape)
    }
}
