import AuthCrypto
import Testing

@Suite("Argon2")
struct Argon2Tests {
    // RFC 9106 section 5: password 32 x 0x01, salt 16 x 0x02, secret 8 x 0x03, associated data 12 x 0x04,
    // m=32 KiB, t=3, p=4, tag 32 bytes, version 0x13.
    @Test(
        "RFC 9106 section 5 test vectors (raw tags with secret and associated data)",
        arguments: [
            (Argon2Variant.d, "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb"),
            (Argon2Variant.i, "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8"),
            (Argon2Variant.id, "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"),
        ])
    func rfc9106(variant: Argon2Variant, tag: String) throws {
        let output = try Argon2.rawHash(
            password: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 16),
            secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12),
            variant: variant, version: 19, memoryKiB: 32, iterations: 3, parallelism: 4, length: 32)
        #expect(Hex.encode(output) == tag)
    }

    // Encoded vectors from the reference implementation's src/test.c (phc-winner-argon2),
    // password "password", salt "somesalt", m=65536 KiB, t=2, p=1.
    static let referenceEncoded = [
        "$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA",
        "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
        "$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ",
    ]

    @Test("reference encoded vectors verify, and a wrong password does not", arguments: referenceEncoded)
    func referenceVectors(encoded: String) throws {
        #expect(try Argon2.verify(encoded: encoded, password: utf8("password")))
        #expect(try !Argon2.verify(encoded: encoded, password: utf8("passwore")))
    }

    @Test("hashing produces the reference encoding for the same inputs")
    func hashMatchesReference() throws {
        let encoded = try Argon2.hash(
            password: utf8("password"), salt: utf8("somesalt"), variant: .id, memoryKiB: 65536, iterations: 2,
            parallelism: 1)
        #expect(encoded == Self.referenceEncoded[1])
    }

    @Test("hash then verify round trip with a random salt")
    func roundTrip() throws {
        let encoded = try Argon2.hash(
            password: utf8("test123"), salt: SecureRandom.bytes(16), memoryKiB: 1024, iterations: 1, parallelism: 2)
        #expect(encoded.hasPrefix("$argon2id$v=19$m=1024,t=1,p=2$"))
        #expect(try Argon2.verify(encoded: encoded, password: utf8("test123")))
        #expect(try !Argon2.verify(encoded: encoded, password: utf8("test124")))
    }

    @Test("parse reads every field without hashing")
    func parse() throws {
        let parsed = try Argon2Hash.parse("$argon2id$v=19$m=262144,t=10,p=8$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc")
        #expect(parsed.variant == .id)
        #expect(parsed.version == 19)
        #expect(parsed.memoryKiB == 262144)
        #expect(parsed.iterations == 10)
        #expect(parsed.parallelism == 8)
        #expect(parsed.salt == utf8("somesalt"))
        #expect(parsed.hash.count == 32)
        let old = try Argon2Hash.parse(Self.referenceEncoded[2])
        #expect(old.version == 16)
        #expect(old.variant == .i)
        #expect(try Argon2Hash.parse("$argon2d$v=16$m=8,t=1,p=1$c29tZXNhbHQ$AAAAAA").variant == .d)
        // A huge memory cost parses (the caller refuses it by policy) and costs nothing here.
        #expect(try Argon2Hash.parse("$argon2id$v=19$m=4294967295,t=4294967295,p=1$c29tZXNhbHQ$AAAAAA").memoryKiB == .max)
        #expect(try Argon2Hash.parse(Self.referenceEncoded[0]).encoded == Self.referenceEncoded[0])
    }

    @Test(
        "parse refuses malformed strings",
        arguments: [
            "", "argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$AAAAAA", "$argon2x$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$AAAAAA",
            "$Argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$AAAAAA", "$argon2id$v=18$m=65536,t=2,p=1$c29tZXNhbHQ$AAAAAA",
            "$argon2id$v=019$m=65536,t=2,p=1$c29tZXNhbHQ$AAAAAA", "$argon2id$v=19$t=2,m=65536,p=1$c29tZXNhbHQ$AAAAAA",
            "$argon2id$v=19$m=65536,t=2$c29tZXNhbHQ$AAAAAA", "$argon2id$v=19$m=65536,t=2,p=1,x=1$c29tZXNhbHQ$AAAAAA",
            "$argon2id$v=19$m=65536,t=0,p=1$c29tZXNhbHQ$AAAAAA", "$argon2id$v=19$m=65536,t=2,p=0$c29tZXNhbHQ$AAAAAA",
            "$argon2id$v=19$m=7,t=2,p=1$c29tZXNhbHQ$AAAAAA", "$argon2id$v=19$m=15,t=2,p=2$c29tZXNhbHQ$AAAAAA",
            "$argon2id$v=19$m=4294967296,t=2,p=1$c29tZXNhbHQ$AAAAAA", "$argon2id$v=19$m=-1,t=2,p=1$c29tZXNhbHQ$AAAAAA",
            "$argon2id$v=19$m=+65536,t=2,p=1$c29tZXNhbHQ$AAAAAA", "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNh$AAAAAA",
            "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ=$AAAAAA", "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$AAA",
            "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$AAAAAA$", "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$AA_-AA",
            "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ", " $argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$AAAAAA",
            "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$AAAAAA\n",
            "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$" + String(repeating: "A", count: 2000),
        ])
    func parseRefuses(encoded: String) {
        let error = #expect(throws: CryptoError.self) { try Argon2Hash.parse(encoded) }
        #expect(error?.code == .invalidEncodedHash)
    }
}
