import Testing

@testable import HTTP1

@Suite("ASCII byte classes")
struct ASCIITests {
    @Test("tchar is exactly RFC 9110's set over all 256 bytes")
    func tokenCharacters() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(byte.isTokenCharacter == tchar.contains(byte), "byte \(byte)")
        }
    }

    @Test("field-value bytes exclude every control but HTAB, and DEL")
    func fieldValueBytes() {
        for byte in UInt8.min...UInt8.max {
            let expected = byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
            #expect(byte.isFieldValueByte == expected, "byte \(byte)")
        }
    }
}
