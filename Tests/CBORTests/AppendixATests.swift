import CBOR
import Testing

/// One example of RFC 8949 Appendix A, Table 6: the encoding in hex and the value it decodes to.
struct AppendixAExample: Sendable, CustomStringConvertible {
    let hex: String
    let value: CBORValue

    var description: String { "0x\(hex)" }
    var bytes: [UInt8] { hexBytes(hex) }

    init(_ hex: String, _ value: CBORValue) {
        self.hex = hex
        self.value = value
    }

    /// Table 6's definite-length examples, in the order the RFC lists them (the NaN example is checked on its own,
    /// since NaN equals nothing).
    static let definite: [AppendixAExample] = [
        .init("00", .unsigned(0)), .init("01", .unsigned(1)), .init("0a", .unsigned(10)),
        .init("17", .unsigned(23)), .init("1818", .unsigned(24)), .init("1819", .unsigned(25)),
        .init("1864", .unsigned(100)), .init("1903e8", .unsigned(1000)), .init("1a000f4240", .unsigned(1_000_000)),
        .init("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        .init("1bffffffffffffffff", .unsigned(18_446_744_073_709_551_615)),
        .init("c249010000000000000000", .tagged(2, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
        .init("3bffffffffffffffff", .negative(18_446_744_073_709_551_615)),
        .init("c349010000000000000000", .tagged(3, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
        .init("20", .negative(0)), .init("29", .negative(9)), .init("3863", .negative(99)),
        .init("3903e7", .negative(999)),
        .init("f90000", .float(0.0)), .init("f98000", .float(-0.0)), .init("f93c00", .float(1.0)),
        .init("fb3ff199999999999a", .float(1.1)), .init("f93e00", .float(1.5)), .init("f97bff", .float(65504.0)),
        .init("fa47c35000", .float(100000.0)), .init("fa7f7fffff", .float(3.4028234663852886e+38)),
        .init("fb7e37e43c8800759c", .float(1.0e+300)), .init("f90001", .float(5.960464477539063e-8)),
        .init("f90400", .float(0.00006103515625)), .init("f9c400", .float(-4.0)),
        .init("fbc010666666666666", .float(-4.1)),
        .init("f97c00", .float(.infinity)), .init("f9fc00", .float(-.infinity)),
        .init("fa7f800000", .float(.infinity)), .init("faff800000", .float(-.infinity)),
        .init("fb7ff0000000000000", .float(.infinity)), .init("fbfff0000000000000", .float(-.infinity)),
        .init("f4", .boolean(false)), .init("f5", .boolean(true)), .init("f6", .null), .init("f7", .undefined),
        .init("f0", .simple(16)), .init("f8ff", .simple(255)),
        .init("c074323031332d30332d32315432303a30343a30305a", .tagged(0, .text("2013-03-21T20:04:00Z"))),
        .init("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))),
        .init("c1fb41d452d9ec200000", .tagged(1, .float(1363896240.5))),
        .init("d74401020304", .tagged(23, .bytes([1, 2, 3, 4]))),
        .init("d818456449455446", .tagged(24, .bytes([0x64, 0x49, 0x45, 0x54, 0x46]))),
        .init(
            "d82076687474703a2f2f7777772e6578616d706c652e636f6d", .tagged(32, .text("http://www.example.com"))),
        .init("40", .bytes([])), .init("4401020304", .bytes([1, 2, 3, 4])),
        .init("60", .text("")), .init("6161", .text("a")), .init("6449455446", .text("IETF")),
        .init("62225c", .text("\"\\")), .init("62c3bc", .text("\u{00fc}")), .init("63e6b0b4", .text("\u{6c34}")),
        .init("64f0908591", .text("\u{10151}")),
        .init("80", .array([])), .init("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        .init("8301820203820405", nested),
        .init("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned($0) })),
        .init("a0", .map([])),
        .init("a201020304", .map([entry(.unsigned(1), .unsigned(2)), entry(.unsigned(3), .unsigned(4))])),
        .init(
            "a26161016162820203",
            .map([entry(.text("a"), .unsigned(1)), entry(.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        .init("826161a161626163", .array([.text("a"), .map([entry(.text("b"), .text("c"))])])),
        .init(
            "a56161614161626142616361436164614461656145",
            .map(["a", "b", "c", "d", "e"].map { entry(.text($0), .text($0.uppercased())) })),
    ]

    /// `[1, [2, 3], [4, 5]]`.
    static let nested: CBORValue = .array([
        .unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)]),
    ])

    /// Table 6's indefinite-length examples (and the streamed strings), every one refused.
    static let indefinite: [String] = [
        "5f42010243030405ff", "7f657374726561646d696e67ff", "9fff", "9f018202039f0405ffff", "9f01820203820405ff",
        "83018202039f0405ff", "83019f0203ff820405",
        "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", "bf61610161629f0203ffff",
        "826161bf61626163ff", "bf6346756ef563416d7421ff",
    ]
}

func entry(_ key: CBORValue, _ value: CBORValue) -> CBORMapEntry { CBORMapEntry(key: key, value: value) }

func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// Compares floats by their bits, so that -0.0 differs from 0.0 (Table 6 lists both).
func sameBits(_ a: CBORValue, _ b: CBORValue) -> Bool {
    switch (a, b) {
    case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
    case (.tagged(let m, let x), .tagged(let n, let y)): m == n && sameBits(x, y)
    default: a == b
    }
}

@Suite("CBOR: RFC 8949 Appendix A")
struct AppendixATests {
    let decoder = CBORDecoder()

    @Test("each definite-length example decodes to the value the RFC lists", arguments: AppendixAExample.definite)
    func definite(example: AppendixAExample) throws {
        let value = try decoder.decode(example.bytes)
        #expect(sameBits(value, example.value), "\(value)")
    }

    @Test("NaN, in each width, decodes to NaN", arguments: ["f97e00", "fa7fc00000", "fb7ff8000000000000"])
    func notANumber(hex: String) throws {
        let value = try decoder.decode(hexBytes(hex))
        #expect(value.floatValue?.isNaN == true, "\(value)")
    }

    @Test("each indefinite-length example is refused as such", arguments: AppendixAExample.indefinite)
    func indefinite(hex: String) {
        // The first indefinite head met is the refusal, not some later symptom.
        let error = #expect(throws: CBORError.self) { try decoder.decode(hexBytes(hex)) }
        #expect(error?.isIndefiniteLength == true, "\(String(describing: error))")
    }

    @Test(
        "every proper prefix of every example is truncated, fed one byte more each time",
        arguments: AppendixAExample.definite)
    func prefixes(example: AppendixAExample) {
        let bytes = example.bytes
        for length in 0..<bytes.count {
            let error = #expect(throws: CBORError.self) { try decoder.decode(Array(bytes[0..<length])) }
            #expect(error?.isTruncated == true, "prefix of \(length) bytes: \(String(describing: error))")
        }
    }
}

extension CBORValue {
    var floatValue: Double? {
        if case .float(let number) = self { number } else { nil }
    }
}

extension CBORError {
    var isTruncated: Bool {
        if case .truncated = self { true } else { false }
    }

    var isIndefiniteLength: Bool {
        if case .indefiniteLength = self { true } else { false }
    }
}
