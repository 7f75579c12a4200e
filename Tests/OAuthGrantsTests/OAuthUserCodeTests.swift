import OAuthGrants
import Testing

/// RFC 8628 section 6.1 user codes: drawn from 20 consonants without bias, read however the owner types them.
@Suite("OAuth user codes: drawn from RFC 8628's consonants, read in any case with dashes and spaces")
struct OAuthUserCodeTests {
    /// A source that hands out `bytes` in order, as many as asked each time.
    final class Bytes: @unchecked Sendable {  // used on one thread, by one test
        var rest: [UInt8]
        init(_ bytes: [UInt8]) { rest = bytes }
        func next(_ count: Int) -> [UInt8] {
            defer { rest.removeFirst(min(count, rest.count)) }
            return Array(rest.prefix(count))
        }
    }

    @Test("the alphabet is RFC 8628 section 6.1's twenty consonants, eight characters a code")
    func alphabet() {
        #expect(String(decoding: OAuthUserCode.alphabet, as: UTF8.self) == "BCDFGHJKLMNPQRSTVWXZ")
        #expect(OAuthUserCode.length == 8)
    }

    @Test("known answers: a byte below 240 picks alphabet[byte % 20]; 240 and above are dropped and more drawn")
    func drawing() {
        #expect(OAuthUserCode.make(bytes: Bytes(Array(0...7)).next) == "BCDFGHJK")
        #expect(OAuthUserCode.make(bytes: Bytes(Array(12...19)).next) == "QRSTVWXZ")
        // 240 and 255 are dropped (they would favour the first 16 letters); 20, 200 wrap to B; 39, 239 to Z; the
        // second draw finishes the code.
        let source = Bytes([240, 255, 19, 20, 39, 200, 239, 0, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(OAuthUserCode.make(bytes: source.next) == "ZBZBZBCD")
    }

    @Test("random codes are eight letters of the alphabet and read back as themselves")
    func random() {
        for _ in 0..<200 {
            let code = OAuthUserCode.random()
            #expect(code.utf8.count == 8 && code.utf8.allSatisfy(OAuthUserCode.alphabet.contains))
            #expect(OAuthUserCode.normalised(code) == code)
        }
    }

    @Test(
        "what an owner types is read case-insensitively with dashes and white space ignored",
        arguments: [
            ("BCDF-GHJK", "BCDFGHJK"), ("bcdf-ghjk", "BCDFGHJK"), ("BcDf GhJk", "BCDFGHJK"),
            ("  bcdfghjk\n", "BCDFGHJK"),
            ("B-C-D-F-G-H-J-K", "BCDFGHJK"), ("wxzb\tqrst", "WXZBQRST"),
        ])
    func normalised(_ typed: String, _ code: String) {
        #expect(OAuthUserCode.normalised(typed) == code)
    }

    @Test(
        "anything else is no code: short, long, a vowel or digit, another dash, past 64 bytes",
        arguments: [
            "", "BCDF-GHJ", "BCDF-GHJKL", "BCDF-GHJA", "BCDF-GHJ1", "BCDF\u{2014}GHJK", "BCDF_GHJK", "ＢCDFGHJK",
            "BCDFGHJK" + String(repeating: " ", count: 57),
        ])
    func refused(_ typed: String) {
        #expect(OAuthUserCode.normalised(typed) == nil)
    }

    @Test("a code is shown as two groups of four")
    func displayed() {
        #expect(OAuthUserCode.displayed("BCDFGHJK") == "BCDF-GHJK")
        #expect(OAuthUserCode.normalised(OAuthUserCode.displayed("QRSTVWXZ")) == "QRSTVWXZ")
    }
}
