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

    @Test("a run of field-value bytes is judged as byte by byte: every byte at every place of runs up to 40")
    func fieldValueRuns() {
        for length in 0...40 {
            for place in 0..<max(1, length) {
                for byte in UInt8.min...UInt8.max {
                    var run = [UInt8](repeating: UInt8(ascii: "a"), count: length + 2)
                    if length > 0 { run[1 + place] = byte }
                    run[0] = 0  // outside the range judged
                    run[length + 1] = 0x7F
                    let expected = run[1..<(length + 1)].allSatisfy(\.isFieldValueByte)
                    let judged = run.withUnsafeBufferPointer { ASCII.areFieldValueBytes($0, 1, length + 1) }
                    if judged != expected { Issue.record("length \(length), byte \(byte) at \(place)") }
                }
            }
        }
        let mixed = Array("Bearer a\tb c\u{80}\u{FF}xyz0123456789".utf8)
        #expect(mixed.withUnsafeBufferPointer { ASCII.areFieldValueBytes($0, 0, mixed.count) })
    }

    @Test("the first LF is found at every place of runs up to 40, after any start, whatever the other bytes")
    func firstLF() {
        for length in 0...40 {
            for start in 0...length {
                for place in [nil] + Array(0..<length) as [Int?] {
                    for filler: UInt8 in [0x0B, 0x09, 0x00, 0xFF, 0x8A, UInt8(ascii: "a")] {
                        var run = [UInt8](repeating: filler, count: length)
                        if let place { run[place] = 0x0A }
                        if let place, place + 1 < length { run[length - 1] = 0x0A }  // a later LF too
                        let expected = run[start...].firstIndex(of: 0x0A)
                        let found = run.withUnsafeBufferPointer { ASCII.firstLF($0, from: start) }
                        if found != expected {
                            Issue.record("length \(length), start \(start), LF at \(String(describing: place))")
                        }
                    }
                }
            }
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
