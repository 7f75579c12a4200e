import AuthCrypto
import Testing

@Suite("SecureRandom: identifiers through the per-thread pool, bytes straight from RAND_bytes")
struct SecureRandomTests {
    @Test("identifiers are lowercase hex, twice the byte count, and never repeat, across pool refills")
    func identifierShape() {
        var seen = Set<String>()
        for _ in 0..<2000 {
            let id = SecureRandom.identifier(byteCount: 16)
            #expect(id.utf8.count == 32)
            #expect(id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            seen.insert(id)
        }
        #expect(seen.count == 2000)
        #expect(SecureRandom.identifier(byteCount: 0) == "")
        #expect(SecureRandom.identifier(byteCount: 1).utf8.count == 2)
        #expect(SecureRandom.identifier(byteCount: 128).utf8.count == 256)
    }

    @Test("bytes of any size come straight from RAND_bytes")
    func bytesSizes() {
        for count in [0, 1, 255, 256, 257, 4095, 4096, 5000] {
            #expect(SecureRandom.bytes(count).count == count)
        }
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }

    @Test("many threads at once never get the same identifier")
    func distinctAcrossThreads() async {
        let chunks = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<600).map { _ in Hex.decode(SecureRandom.identifier(byteCount: 16)) ?? [] } }
            }
            return await group.reduce(into: [[UInt8]]()) { $0 += $1 }
        }
        #expect(chunks.count == 4800)
        #expect(Set(chunks).count == 4800)
        // Not a statistical test: only that the bytes are not stuck (all zero, or one value).
        #expect(Set(chunks.joined()).count > 200)
    }

}
