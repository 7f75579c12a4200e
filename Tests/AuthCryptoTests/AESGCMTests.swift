import AuthCrypto
import Testing

@Suite("AES-256-GCM")
struct AESGCMTests {
    @Test("known answers: McGrew–Viega GCM test cases 14 (zeros) and 16 (with associated data)")
    func knownAnswers() throws {
        let zeros = try AESGCM.seal(
            [UInt8](repeating: 0, count: 16), key: [UInt8](repeating: 0, count: 32),
            nonce: [UInt8](repeating: 0, count: 12))
        #expect(Hex.encode(zeros) == "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919")

        let key = bytes("feffe9928665731c6d6a8f9467308308 feffe9928665731c6d6a8f9467308308")
        let nonce = bytes("cafebabefacedbaddecaf888")
        let plaintext = bytes(
            """
            d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72
            1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b39
            """)
        let associated = bytes("feedfacedeadbeeffeedfacedeadbeef abaddad2")
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: associated)
        #expect(
            Hex.encode(sealed)
                == "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662" + "76fc6ece0f4e1768cddf8853bb2d551b")
        #expect(try AESGCM.open(sealed, key: key, nonce: nonce, associatedData: associated) == plaintext)
    }

    @Test("a changed byte, key, nonce or associated data does not open; wrong lengths are refused")
    func tampering() throws {
        let key = SecureRandom.bytes(32)
        let nonce = SecureRandom.bytes(12)
        let sealed = try AESGCM.seal(utf8("a private key"), key: key, nonce: nonce, associatedData: utf8("kid-1"))
        #expect(try AESGCM.open(sealed, key: key, nonce: nonce, associatedData: utf8("kid-1")) == utf8("a private key"))
        var flipped = sealed
        flipped[3] ^= 1
        for (sealed, key, nonce, associated) in [
            (flipped, key, nonce, utf8("kid-1")), (sealed, SecureRandom.bytes(32), nonce, utf8("kid-1")),
            (sealed, key, SecureRandom.bytes(12), utf8("kid-1")), (sealed, key, nonce, utf8("kid-2")),
            (Array(sealed.prefix(10)), key, nonce, utf8("kid-1")),
        ] {
            #expect(throws: CryptoError.self) {
                try AESGCM.open(sealed, key: key, nonce: nonce, associatedData: associated)
            }
        }
        #expect(throws: CryptoError(.invalidParameters, "AES-256-GCM needs a 32-byte key")) {
            try AESGCM.seal([1], key: [1, 2], nonce: nonce)
        }
        #expect(throws: CryptoError(.invalidParameters, "AES-GCM needs a 12-byte nonce")) {
            try AESGCM.seal([1], key: key, nonce: [1])
        }
    }
}
