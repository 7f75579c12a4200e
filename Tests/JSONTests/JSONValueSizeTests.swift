import JSON
import Testing

@Suite("JSONValue.serializedCount: the serializer's length, found without writing")
struct JSONValueSizeTests {
    static let samples: [JSONValue] = [
        .null, .bool(true), .bool(false), .int(0), .int(9), .int(10), .int(-1), .int(-10), .int(.max), .int(.min),
        .double(0.5), .double(1e-5), .double(.infinity), .string(""), .string("plain"),
        .string("quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} é ✓ 😀"),
        .array([]), .object([]), .array([.int(1), .string("a"), .null]),
        .object([("a", .int(1)), ("b\n", .array([.object([("", .bool(false))])]))]),
    ]

    @Test("equals serialize().count for every kind of value", arguments: samples)
    func matchesSerializer(_ value: JSONValue) {
        let bytes = value.serialize().count
        #expect(value.serializedCount(notExceeding: bytes) == bytes)
        #expect(value.serializedCount(notExceeding: bytes - 1) == nil)
        #expect(value.serializedCount(notExceeding: .max) == bytes)
    }

    @Test("a value shared 2^40 times over is refused after walking no more than its limit")
    func sharedDoubling() {
        var value = JSONValue.string("x")
        for _ in 0..<40 { value = .array([value, value]) }
        // Expanded, this is 2^40 strings; counting stops once a megabyte is passed.
        #expect(value.serializedCount(notExceeding: 1 << 20) == nil)
        var small = JSONValue.string("x")
        for _ in 0..<10 { small = .array([small, small]) }
        #expect(small.serializedCount(notExceeding: 1 << 20) == small.serialize().count)
    }
}
