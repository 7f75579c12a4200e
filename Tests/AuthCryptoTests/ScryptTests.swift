import AuthCrypto
import Testing

@Suite("scrypt")
struct ScryptTests {
    @Test("RFC 7914 section 12: empty password and salt, N=16 r=1 p=1")
    func rfc7914Small() throws {
        let key = try Scrypt.derive(password: [], salt: [], n: 16, r: 1, p: 1, length: 64)
        #expect(
            key == bytes(
                """
                77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
                fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06
                """))
    }

    @Test("RFC 7914 section 12: password/NaCl, N=1024 r=8 p=16")
    func rfc7914NaCl() throws {
        let key = try Scrypt.derive(password: utf8("password"), salt: utf8("NaCl"), n: 1024, r: 8, p: 16, length: 64)
        #expect(
            key == bytes(
                """
                fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
                2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40
                """))
    }

    @Test("RFC 7914 section 12: pleaseletmein/SodiumChloride, N=16384 r=8 p=1")
    func rfc7914Sodium() throws {
        let key = try Scrypt.derive(
            password: utf8("pleaseletmein"), salt: utf8("SodiumChloride"), n: 16384, r: 8, p: 1, length: 64)
        #expect(
            key == bytes(
                """
                70 23 bd cb 3a fd 73 48 46 1c 06 cd 81 fd 38 eb fd a8 fb ba 90 4f 8e 3e a9 b5 43 f6 54 5d a1 f2
                d5 43 29 55 61 3f 0f cf 62 d4 97 05 24 2a 9a f9 e6 1e 85 dc 0d 65 1e 40 df cf 01 7b 45 57 58 87
                """))
    }

    static let defaultSalt = "0b980734412c292d6549110276b604ab1dea4883bd460d77d1b984adf8bca083"

    @Test(
        "agent proof-of-work vectors from CONTRACT.md 1.2",
        arguments: [
            ("fixture-alpha", 4, "4", "0e365cf9d7a9a9d515b5362da1ed60b3"),
            ("fixture-beta", 6, "51", "0326f14661b1f70377aafd19280fcf8f"),
            ("fixture-gamma", 8, "80", "004f0f2b137a745d72ff9ba1cacda12d"),
        ])
    func agentProofOfWork(challenge: String, difficulty: Int, nonce: String, prefix: String) throws {
        let pow = try Scrypt.derive(
            password: utf8("\(challenge):\(nonce)"), salt: utf8(Self.defaultSalt), n: 16384, r: 8, p: 1, length: 64)
        let powHex = Hex.encode(pow)
        #expect(powHex.count == 128)
        #expect(powHex.hasPrefix(prefix))
        // The first `difficulty` bits are zero.
        let leadingZeroBits = pow.prefix { $0 == 0 }.count * 8 + (pow.first { $0 != 0 }.map { $0.leadingZeroBitCount } ?? 0)
        #expect(leadingZeroBits >= difficulty)
    }

    @Test("invalid costs are refused before any work")
    func invalidParameters() {
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [], salt: [], n: 1000, r: 8, p: 1, length: 64) }
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [], salt: [], n: 1, r: 8, p: 1, length: 64) }
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [], salt: [], n: 16, r: 0, p: 1, length: 64) }
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [], salt: [], n: 16, r: 1, p: 0, length: 64) }
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [], salt: [], n: 16, r: 1, p: 1, length: 0) }
    }
}
