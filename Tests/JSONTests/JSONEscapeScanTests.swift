import Testing

@testable import JSON

@Suite("JSON strings: the eight-bytes-at-a-time escape scan")
struct JSONEscapeScanTests {
    static func escapes(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    @Test("agrees with the byte rule for every byte at every place of runs up to 20")
    func everyByteEverywhere() {
        for length in 1...20 {
            for place in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[place] = UInt8(value)
                    let found = bytes.withUnsafeBufferPointer { JSONValue.needsEscaping($0) }
                    #expect(found == Self.escapes(UInt8(value)), "byte \(value) at \(place) of \(length)")
                }
            }
        }
        #expect(!JSONValue.needsEscaping(UnsafeBufferPointer(start: nil, count: 0)))
    }

    @Test("strings with and without escapes serialize to the same text as before the fast path")
    func serialized() {
        let plain = String(repeating: "kid-é-0123456789", count: 3)
        #expect(JSONValue.string(plain).serialize() == Array("\"\(plain)\"".utf8))
        #expect(JSONValue.string("\u{8}\u{c}\n\r\t\"\\\u{1f}").description == #""\b\f\n\r\t\"\\\u001f""#)
        let mixed = "a\"b\\c\nd\u{01}" + String(repeating: "x", count: 9)
        #expect(
            String(decoding: JSONValue.string(mixed).serialize(), as: UTF8.self)
                == #""a\"b\\c\nd\u0001xxxxxxxxx""#)
    }
}
