import Testing

import TOTP

@Suite("Base32 (RFC 4648 §10 test vectors)")
struct Base32Tests {
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
        ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
    ]

    @Test("Encodes the vectors, padded and unpadded")
    func encode() {
        for (plain, encoded) in Self.vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.encode(Array(plain.utf8), padded: false) == encoded.filter { $0 != "=" })
        }
    }

    @Test("Decodes the vectors, padded or not, in either case, with spaces and hyphens")
    func decode() {
        for (plain, encoded) in Self.vectors {
            #expect(Base32.decode(encoded) == Array(plain.utf8))
            #expect(Base32.decode(encoded.filter { $0 != "=" }.lowercased()) == Array(plain.utf8))
        }
        #expect(Base32.decode("MZXW 6YTB-OI") == Array("foobar".utf8))
    }

    @Test("Refuses other characters, padding in the middle, impossible lengths and stray bits")
    func refuses() {
        #expect(Base32.decode("MZXW1") == nil)  // 1 is not in the alphabet
        #expect(Base32.decode("MY==MZXQ") == nil)
        #expect(Base32.decode("M") == nil)
        #expect(Base32.decode("MZX") == nil)
        #expect(Base32.decode("MZXW6Y") == nil)
        #expect(Base32.decode("MZ") == nil)  // "f" is MY: Z leaves a set bit over
    }

    @Test("Random bytes survive the round trip")
    func roundTrip() {
        for length in 0..<41 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base32.decode(Base32.encode(bytes, padded: false)) == bytes)
        }
    }
}

@Suite("The otpauth URI and recovery codes")
struct OTPAuthURITests {
    @Test("The key URI: label and issuer percent-encoded, the secret unpadded base32, the parameters")
    func uri() {
        let uri = OTPAuthURI(issuer: "Postern example", account: "ann+mfa@example.com", secret: Array("foobar".utf8))
        #expect(
            uri.text
                == "otpauth://totp/Postern%20example:ann%2Bmfa%40example.com?secret=MZXW6YTBOI"
                + "&issuer=Postern%20example&algorithm=SHA1&digits=6&period=30")
    }

    @Test("Characters that would change the URI's shape are escaped, UTF-8 byte by byte")
    func escapes() {
        let uri = OTPAuthURI(issuer: "a:b&c?d", account: "é#", secret: [0])
        #expect(uri.text.hasPrefix("otpauth://totp/a%3Ab%26c%3Fd:%C3%A9%23?secret=AA&issuer=a%3Ab%26c%3Fd&"))
    }

    @Test("Ten distinct codes of two groups of five; the digest ignores case, hyphen and spaces")
    func recoveryCodes() throws {
        let codes = RecoveryCodes.generate()
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        for code in codes {
            #expect(code.count == 11)
            #expect(Array(code)[5] == "-")
            let digest = try #require(RecoveryCodes.digest(code))
            #expect(RecoveryCodes.digest(code.uppercased()) == digest)
            #expect(RecoveryCodes.digest(code.split(separator: "-").joined(separator: " ")) == digest)
        }
        #expect(RecoveryCodes.digest("123456") == nil)
        #expect(RecoveryCodes.digest("abcde-fghi1") == nil)
        #expect(RecoveryCodes.digest("abcde-fghijk") == nil)
    }
}
