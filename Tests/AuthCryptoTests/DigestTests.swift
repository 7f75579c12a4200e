import AuthCrypto
import Testing

@Suite("SHA-256 and HMAC-SHA256")
struct DigestTests {
    @Test("SHA-1 known answers (FIPS 180-2 \"abc\", empty string)")
    func sha1() {
        #expect(Hex.encode(SHA1.hash(utf8("abc"))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Hex.encode(SHA1.hash([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(SHA1.hash(utf8("abc")) == SHA1.hash(utf8("abc")[...]))
    }

    @Test("SHA-256 known answers (FIPS 180-2 \"abc\", empty string)")
    func sha256() {
        #expect(
            Hex.encode(SHA256.hash(utf8("abc"))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(SHA256.hash("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hash("abc") == SHA256.hash(utf8("abc")[...]))
    }

    struct HMACVector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var testDescription: String { name }
    }

    static let rfc4231: [HMACVector] = [
        HMACVector(
            name: "RFC 4231 case 1", key: [UInt8](repeating: 0x0b, count: 20), data: utf8("Hi There"),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        HMACVector(
            name: "RFC 4231 case 2", key: utf8("Jefe"), data: utf8("what do ya want for nothing?"),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        HMACVector(
            name: "RFC 4231 case 3", key: [UInt8](repeating: 0xaa, count: 20),
            data: [UInt8](repeating: 0xdd, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        HMACVector(
            name: "RFC 4231 case 4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        HMACVector(
            name: "RFC 4231 case 5 (first 128 bits)", key: [UInt8](repeating: 0x0c, count: 20),
            data: utf8("Test With Truncation"), mac: "a3b6167473100ee06e0c796c2955552b"),
        HMACVector(
            name: "RFC 4231 case 6", key: [UInt8](repeating: 0xaa, count: 131),
            data: utf8("Test Using Larger Than Block-Size Key - Hash Key First"),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        HMACVector(
            name: "RFC 4231 case 7", key: [UInt8](repeating: 0xaa, count: 131),
            data: utf8(
                "This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm."),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("HMAC-SHA256 RFC 4231 vectors", arguments: rfc4231)
    func hmac(_ vector: HMACVector) {
        let mac = Hex.encode(HMACSHA256.authenticationCode(key: vector.key, message: vector.data))
        #expect(mac.hasPrefix(vector.mac))
        #expect(mac.count == 64)
    }

    @Test(
        "a prepared HMAC key gives the RFC 4231 values, repeatedly and from many tasks, on reused contexts",
        arguments: rfc4231)
    func preparedHMAC(_ vector: HMACVector) async throws {
        let key = try HMACSHA256.Key(vector.key)
        #expect(Hex.encode(key.authenticationCode(vector.data)).hasPrefix(vector.mac))
        // Messages of other lengths between the vector's, so that a context that kept any state from its
        // last MAC would give a wrong value.
        let other = vector.data + [UInt8](repeating: 0x5c, count: 70)
        let otherMAC = Hex.encode(HMACSHA256.authenticationCode(key: vector.key, message: other))
        let results = await withTaskGroup(of: Set<String>.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var seen = Set<String>()
                    for round in 0..<50 {
                        if round % 3 == 1 {
                            if Hex.encode(key.authenticationCode(other)) != otherMAC { seen.insert("other") }
                        } else {
                            seen.insert(Hex.encode(key.authenticationCode(vector.data)))
                        }
                    }
                    return seen
                }
            }
            return await group.reduce(into: Set<String>()) { $0.formUnion($1) }
        }
        #expect(results.count == 1)
        #expect(results.first?.hasPrefix(vector.mac) == true)
    }

    @Test("HMAC-SHA1 RFC 2202 vectors 1, 2 and 6 (a key longer than the block)")
    func hmacSHA1() {
        let vectors: [([UInt8], String, String)] = [
            (Array(repeating: 0x0b, count: 20), "Hi There", "b617318655057264e28bc0b6fb378c8ef146be00"),
            (Array("Jefe".utf8), "what do ya want for nothing?", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
            (
                Array(repeating: 0xaa, count: 80), "Test Using Larger Than Block-Size Key - Hash Key First",
                "aa4ae5e15272d00e95705637ce8a3b55ed402112"
            ),
        ]
        for (key, data, mac) in vectors {
            #expect(Hex.encode(HMACSHA1.authenticationCode(key: key, message: Array(data.utf8))) == mac)
        }
    }

    @Test("HMAC with an empty key and empty message matches the known value")
    func hmacEmpty() {
        #expect(
            Hex.encode(HMACSHA256.authenticationCode(key: [], message: []))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test("constant-time comparison")
    func constantTime() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(constantTimeEquals([], []))
        #expect(!constantTimeEquals([], [0]))
    }

    @Test("a prepared HMAC key with an empty secret gives the known value")
    func preparedEmptyKey() throws {
        #expect(
            Hex.encode(try HMACSHA256.Key([]).authenticationCode([]))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}
