import Base64Coding
import Foundation
import Testing

/// The one base64 of every target (issue 67): RFC 4648 section 10's vectors, base64url without padding, and each
/// caller's tolerance: padded and strict (SMTP AUTH, DKIM, JMAP's and MCP's blobs, as Foundation's decoder they
/// replace was), unpadded and canonical (Argon2's PHC strings), a mail reader's lenient one (MIME).
@Suite("Base64Coding")
struct Base64Tests {
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test("RFC 4648 section 10: standard base64 with padding, both ways")
    func padded() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64.encode([0xfb, 0xff, 0xbf]) == "+/+/")
        #expect(Base64.decode("+/+/") == [0xfb, 0xff, 0xbf])
    }

    @Test("RFC 4648 section 10 without padding: base64url and unpadded standard")
    func unpadded() {
        for (plain, encoded) in Self.vectors {
            let bare = encoded.replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(Array(plain.utf8)) == bare)
            #expect(Base64URL.decode(bare) == Array(plain.utf8))
            #expect(Base64.encodeUnpadded(Array(plain.utf8)) == bare)
            #expect(Base64.decodeUnpadded(bare) == Array(plain.utf8))
        }
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
        #expect(Base64URL.decode("Zg==") == nil)
        #expect(Base64.decodeUnpadded("Zg==") == nil)
        #expect(Base64.decodeUnpadded("Zh") == nil)
    }

    @Test("padded decoding refuses bad lengths, misplaced padding, whitespace and the url alphabet")
    func paddedRefusals() {
        let texts = [
            "Zg", "Zg=", "Zg===", "=", "==", "====", " Zg==", "Zg==\r\n", "Zm9v\nYmFy", "Zg==Zg==", "Zm9v YmFy", "-_-_",
            "Zm9vé==",
        ]
        for text in texts {
            #expect(Base64.decode(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test("padded decoding agrees with Foundation's Data(base64Encoded:) it replaced, pad bits included")
    func paddedAgreesWithFoundation() {
        #expect(Base64.decode("Zh==") == Array("f".utf8))  // RFC 4648 3.5: a decoder may ignore the pad bits
        let texts = [
            "", "Zg==", "Zh==", "Zm9=", "Zm8=", "Zg", "Zg=", "Q===", "QUJD", "QUJDRA==", "QUJDRA", "QU-_", "QUJ\nD",
            " QQ==", "QQ==\r\n", "AHVzZXIAcGFzcw==", "=", "+/+/", "////", "A===",
        ]
        for text in texts {
            #expect(Base64.decode(text) == Data(base64Encoded: text).map(Array.init), "\(text.debugDescription)")
        }
    }

    @Test("encoding agrees with Foundation's at every length, in one line and folded at 76 and 64 with CRLF")
    func encodingAgreesWithFoundation() {
        for length in 0..<200 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 59 + length) }
            let data = Data(bytes)
            #expect(Base64.encode(bytes) == data.base64EncodedString())
            #expect(
                Base64.encode(bytes, lineLength: 76)
                    == data.base64EncodedString(options: [
                        .lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed,
                    ]))
            #expect(Base64.encode(bytes, lineLength: 64) == data.base64EncodedString(options: .lineLength64Characters))
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
    }

    @Test("a mail reader's decoding skips line breaks and stray bytes, stops at =, takes both alphabets")
    func lenient() {
        #expect(Base64.decodeLenient(Array("Zm9v\r\nYmFy\r\n".utf8)) == Array("foobar".utf8))
        #expect(Base64.decodeLenient(Array(" Zm9v*Ym Fy".utf8)) == Array("foobar".utf8))
        #expect(Base64.decodeLenient(Array("Zm9vYg==Zm9v".utf8)) == Array("foob".utf8))
        #expect(Base64.decodeLenient(Array("Zm9vY".utf8)) == Array("foo".utf8))  // a lone last character: no byte
        #expect(Base64.decodeLenient(Array("Zh".utf8)) == Array("f".utf8))
        #expect(Base64.decodeLenient(Array("-_-_".utf8)) == [0xfb, 0xff, 0xbf])
        #expect(Base64.decodeLenient(Array("+/+/".utf8)) == [0xfb, 0xff, 0xbf])
        #expect(Base64.decodeLenient(Array("!!!".utf8)) == [])
        #expect(Base64.decodeLenient(Array("".utf8)) == [])
    }
}
