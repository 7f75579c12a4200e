import CBOR
import Testing

/// What a hostile or careless encoder may send: each refused with its own error, nothing allocated on its word.
@Suite("CBOR: hostile and non-canonical input")
struct HostileInputTests {
    let decoder = CBORDecoder()

    @Test(
        "a head not in its shortest form is refused",
        arguments: [
            "1800", "1817", "190017", "1900ff", "1a0000ffff", "1b00000000ffffffff", "3800", "5801ff", "780161",
            "9800", "b800", "d800f6", "f800", "f81f",
        ])
    func nonShortest(hex: String) {
        #expect(throws: CBORError.nonCanonicalHead(offset: 0)) { try decoder.decode(hexBytes(hex)) }
    }

    @Test("reserved additional information 28 to 30 is refused in every major type")
    func reserved() {
        for major in UInt8(0)...7 {
            for info in UInt8(28)...30 {
                #expect(throws: CBORError.reservedAdditionalInformation(offset: 0)) {
                    try decoder.decode([major << 5 | info, 0, 0, 0, 0, 0, 0, 0, 0])
                }
            }
        }
    }

    @Test("a stray break byte is refused, at the top and inside an array")
    func strayBreak() {
        #expect(throws: CBORError.indefiniteLength(offset: 0)) { try decoder.decode([0xff]) }
        #expect(throws: CBORError.indefiniteLength(offset: 1)) { try decoder.decode([0x81, 0xff]) }
    }

    @Test("map keys must increase bytewise; an equal key is a duplicate")
    func mapKeyOrder() throws {
        // {3: 4, 1: 2}
        #expect(throws: CBORError.keysOutOfOrder(offset: 3)) { try decoder.decode(hexBytes("a203040102")) }
        // {1: 2, 1: 3}
        #expect(throws: CBORError.duplicateKey(offset: 3)) { try decoder.decode(hexBytes("a201020103")) }
        // {"b": 1, "a": 2}
        #expect(throws: CBORError.keysOutOfOrder(offset: 4)) { try decoder.decode(hexBytes("a2616201616102")) }
        // {"aa": 1, "b": 2}: the shorter key sorts first (CTAP2's rule; bytewise, 0x61 < 0x62).
        #expect(throws: CBORError.keysOutOfOrder(offset: 5)) { try decoder.decode(hexBytes("a262616101616202")) }
        // A COSE EC2 key's labels in canonical order: 1, 3, -1, -2, -3 (0x01 0x03 0x20 0x21 0x22).
        let key = try decoder.decode(hexBytes("a5010203262001215820") + [UInt8](repeating: 7, count: 32)
            + hexBytes("225820") + [UInt8](repeating: 9, count: 32))
        #expect(key[int: 3] == .negative(6))
        #expect(key[int: -2]?.bytesValue == [UInt8](repeating: 7, count: 32))
        // -1 before 1 is not canonical: 0x20 sorts after 0x01.
        #expect(throws: CBORError.keysOutOfOrder(offset: 3)) { try decoder.decode(hexBytes("a220010102")) }
        // Duplicate keys far apart are out of order by the time the second is read.
        #expect(throws: CBORError.keysOutOfOrder(offset: 5)) { try decoder.decode(hexBytes("a3010002000100")) }
    }

    @Test("text that is not UTF-8 is refused", arguments: ["61ff", "62c328", "63eda080", "64f8888080"])
    func invalidUTF8(hex: String) {
        #expect(throws: CBORError.invalidUTF8(offset: 1)) { try decoder.decode(hexBytes(hex)) }
    }

    @Test("bytes after the item are refused; decodePrefix reports where the item ended")
    func trailing() throws {
        #expect(throws: CBORError.trailingBytes(offset: 1)) { try decoder.decode([0x01, 0x02]) }
        let (value, end) = try decoder.decodePrefix([0x00, 0x82, 0x01, 0x02, 0xa0], from: 1)
        #expect(value == .array([.unsigned(1), .unsigned(2)]))
        #expect(end == 4)
    }

    @Test("a declared length beyond the input is truncated before anything is allocated")
    func hugeLengths() {
        for hex in ["5bffffffffffffffff", "7bffffffffffffffff", "9bffffffffffffffff", "bbffffffffffffffff",
            "5a7fffffff00", "9a00010000", "ba0001000001"]
        {
            let error = #expect(throws: CBORError.self) { try decoder.decode(hexBytes(hex)) }
            #expect(error?.isTruncated == true, "\(hex): \(String(describing: error))")
        }
        #expect(throws: CBORError.truncated(offset: 0)) { try decoder.decode([]) }
    }

    @Test("nesting deeper than the limit is refused: arrays, maps and tags")
    func depth() throws {
        let limits = CBORLimits(maximumBytes: 1024, maximumDepth: 4, maximumItems: 100)
        let decoder = CBORDecoder(limits: limits)
        // Four levels: [[[1]]] and {0: {0: [1]}} and tag(tag(tag(1))).
        _ = try decoder.decode(hexBytes("81818101"))
        _ = try decoder.decode(hexBytes("a100a1008101"))
        _ = try decoder.decode(hexBytes("c1c1c101"))
        #expect(throws: CBORError.tooDeep(offset: 4)) { try decoder.decode(hexBytes("8181818101")) }
        #expect(throws: CBORError.tooDeep(offset: 7)) { try decoder.decode(hexBytes("a100a100a100a10001")) }
        #expect(throws: CBORError.tooDeep(offset: 4)) { try decoder.decode(hexBytes("c1c1c1c101")) }
        // The default limit, 16, against 60,000 nested arrays: refused at depth 17, the stack untouched.
        #expect(throws: CBORError.tooDeep(offset: 16)) {
            try CBORDecoder().decode([UInt8](repeating: 0x81, count: 60_000) + [0x01])
        }
    }

    @Test("more items than the limit, or more bytes, are refused")
    func itemsAndBytes() throws {
        let decoder = CBORDecoder(limits: CBORLimits(maximumBytes: 64, maximumDepth: 4, maximumItems: 10))
        _ = try decoder.decode([0x89] + [UInt8](repeating: 0, count: 9))
        #expect(throws: CBORError.tooManyItems(offset: 10)) {
            try decoder.decode([0x8a] + [UInt8](repeating: 0, count: 10))
        }
        #expect(throws: CBORError.tooLarge) { try decoder.decode([0x58, 0x40] + [UInt8](repeating: 0, count: 64)) }
        #expect(throws: CBORLimitsError(limit: "maximumDepth")) {
            try CBORLimits(maximumBytes: 1, maximumDepth: 0, maximumItems: 1).validate()
        }
    }

    @Test("integers read as Int64 where they fit")
    func int64() throws {
        #expect(try decoder.decode(hexBytes("390100")).int64Value == -257)
        #expect(try decoder.decode(hexBytes("3b7fffffffffffffff")).int64Value == Int64.min)
        #expect(try decoder.decode(hexBytes("3b8000000000000000")).int64Value == nil)
        #expect(try decoder.decode(hexBytes("1b7fffffffffffffff")).int64Value == Int64.max)
        #expect(try decoder.decode(hexBytes("1b8000000000000000")).int64Value == nil)
    }
}
