import AuthCrypto
import PosternTestSupport
import Testing

@testable import RemoteHashAuth

@Suite("An unknown email's login costs what a known email's does")
struct LoginDecoyTests {
    private func shape(memoryKiB: UInt32, salt: Int = 16, tag: Int = 32) -> Argon2Hash {
        Argon2Hash(
            variant: .id, memoryKiB: memoryKiB, iterations: 3, parallelism: 1, salt: SecureRandom.bytes(salt),
            hash: SecureRandom.bytes(tag))
    }

    @Test("before any login: the fallback costs, no wait")
    func fallback() {
        let sample = LoginDecoy().sample()
        #expect(sample.fetch == .zero)
        #expect(sample.shape.memoryKiB == 19_456 && sample.shape.iterations == 2 && sample.shape.parallelism == 1)
        #expect(sample.shape.salt.count == 16 && sample.shape.hash.count == 32)
    }

    @Test("replays a remembered login's wait and costs, with a fresh salt and tag of the same lengths")
    func replays() {
        let decoy = LoginDecoy()
        let real = shape(memoryKiB: 64, salt: 24, tag: 48)
        decoy.record(fetch: .milliseconds(7), hash: real)
        let sample = decoy.sample()
        #expect(sample.fetch == .milliseconds(7))
        #expect(sample.shape.variant == real.variant && sample.shape.memoryKiB == 64 && sample.shape.iterations == 3)
        #expect(sample.shape.salt.count == 24 && sample.shape.hash.count == 48)
        #expect(sample.shape.salt != real.salt && sample.shape.hash != real.hash)
    }

    @Test("remembers only the most recent logins")
    func forgetsOldest() {
        let decoy = LoginDecoy()
        decoy.record(fetch: .seconds(9), hash: shape(memoryKiB: 8))
        for index in 0..<LoginDecoy.capacity {
            decoy.record(fetch: .milliseconds(index), hash: shape(memoryKiB: 64))
        }
        for _ in 0..<500 {
            let sample = decoy.sample()
            #expect(sample.shape.memoryKiB == 64 && sample.fetch < .seconds(1))
        }
    }

    @Test(
        "an unknown email runs one verification at the costs of the last known login",
        arguments: StorageBackend.allCases)
    func unknownEmailVerifiesOnce(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "pw")
        #expect(await h.register("known@example.com", url, "pw") == (201, nil))
        #expect(await h.login("known@example.com", "wrong").error == "Invalid email or password.")
        let sample = h.service.decoy.sample()
        #expect(sample.shape.memoryKiB == 64 && sample.shape.iterations == 1)
        let before = h.service.verifier.gate.admittedCount
        #expect(await h.login("nobody@example.com", "pw").error == "Invalid email or password.")
        #expect(h.service.verifier.gate.admittedCount == before + 1)
    }
}
