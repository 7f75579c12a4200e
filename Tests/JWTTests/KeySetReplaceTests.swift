import AuthCrypto
import Foundation
import JWT
import Synchronization
import Testing

@Suite("JWTKeySet under concurrent replace")
struct KeySetReplaceTests {
    /// A rotation swaps the whole set while the JWKS is being served. Each document must be the JWKS of
    /// the set before or of the set after, never a mix (such as the old kid order without the new active
    /// key, which would send clients away without the key that signs their next tokens).
    @Test("every JWKS and key list read during rotations is the old set's or the new set's")
    func jwksNeverMixesTwoSets() throws {
        // Twelve verify-only kids (one public key under many names is enough for a JWKS), listed in
        // opposite orders by the two sets, so that any read mixing their fields gives a third document.
        let retired = try (0..<12).map { try JWTKey.rsa(kid: "retired-\($0)", publicKey: sharedRSAKey.publicKey) }
        let old = try JWTKey.rsa(kid: "old", privateKey: sharedRSAKey)
        let new = try JWTKey.rsa(kid: "new", privateKey: sharedRSAKey)
        let before = try JWTKeySet(keys: [old] + retired, activeHMAC: nil, activeRSA: "old")
        let after = try JWTKeySet(keys: retired.reversed() + [old, new], activeHMAC: nil, activeRSA: "new")
        let expected = [before.jwksJSON(), after.jwksJSON()]
        let expectedKIDs = [before.keys.map(\.kid), after.keys.map(\.kid)]
        let published = try JWTKeySet(keys: [old] + retired, activeHMAC: nil, activeRSA: "old")

        // A plain thread rotates back and forth while this one reads: CPU only, at most 2 s.
        let flips = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            while !stop.load(ordering: .relaxed) {
                published.replace(with: flips.load(ordering: .relaxed) % 2 == 0 ? after : before)
                flips.add(1, ordering: .relaxed)
            }
            stopped.signal()
        }.start()
        while flips.load(ordering: .relaxed) == 0 { sched_yield() }
        // Before the fix, debug builds mixed the sets in about 4 reads in 100.
        var mixed = 0
        var reads = 0
        let clock = ContinuousClock()
        let end = clock.now + .seconds(2)
        while reads < 2_000 && clock.now < end {
            if !expected.contains(published.jwksJSON()) { mixed += 1 }
            if !expectedKIDs.contains(published.keys.map(\.kid)) { mixed += 1 }
            reads += 2
        }
        stop.store(true, ordering: .relaxed)
        stopped.wait()
        #expect(mixed == 0, "\(mixed) of \(reads) reads mixed the two sets (\(flips.load(ordering: .relaxed)) rotations)")
    }
}
