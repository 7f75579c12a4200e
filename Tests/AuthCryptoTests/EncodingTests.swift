import AuthCrypto
import Testing

@Suite("Hex, Base64, Base64URL, SecureRandom")
struct EncodingTests {
    @Test("hex round trip, lowercase output, strict input")
    func hex() {
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.decode("000FA5ff") == [0x00, 0x0f, 0xa5, 0xff])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("0g") == nil)
        #expect(Hex.decode(" 00") == nil)
    }

    @Test("base64url RFC 4648 vectors without padding")
    func base64urlVectors() {
        let vectors: [(String, String)] = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(utf8(plain)) == encoded)
            #expect(Base64URL.decode(encoded) == utf8(plain))
        }
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test("standard base64 RFC 4648 vectors with padding, the alphabet's last two characters + and /")
    func base64Vectors() {
        let vectors: [(String, String)] = [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors { #expect(Base64.encode(utf8(plain)) == encoded) }
        #expect(Base64.encode([0xfb, 0xff, 0xbf]) == "+/+/")
        #expect(Base64.encode([0] + utf8("user") + [0] + utf8("pass")) == "AHVzZXIAcGFzcw==")
    }

    @Test("base64url refuses padding, standard alphabet, bad lengths and non-canonical endings")
    func base64urlStrict() {
        #expect(Base64URL.decode("Zg==") == nil)
        #expect(Base64URL.decode("+/+/") == nil)
        #expect(Base64URL.decode("Z") == nil)
        #expect(Base64URL.decode("Zh") == nil)  // "Zg" is the one encoding of "f"
        #expect(Base64URL.decode("Zm9") == nil)  // "Zm8" is the one encoding of "fo"
        #expect(Base64URL.decode("Zm 9v") == nil)
        #expect(Base64URL.decode("Zm9v\n") == nil)
        #expect(Base64URL.decode("Zm9vé") == nil)
    }

    @Test("base64url round trips every length and byte value")
    func base64urlRoundTrip() {
        for length in 0..<70 {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + length) }
            #expect(Base64URL.decode(Base64URL.encode(data)) == data)
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64URL.decode(Base64URL.encode(all)) == all)
    }

    @Test("random bytes have the asked length and differ")
    func random() {
        #expect(SecureRandom.bytes(0).isEmpty)
        let a = SecureRandom.bytes(32), b = SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
        let hex = SecureRandom.hex(byteCount: 16)
        #expect(hex.count == 32)
        #expect(hex.allSatisfy { "0123456789abcdef".contains($0) })
    }
}
