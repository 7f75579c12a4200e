import JSON
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    func parse(_ text: String, limits: JSONValue.Limits = .init()) throws -> JSONValue {
        try JSONValue.parse(Array(text.utf8), limits: limits)
    }

    @Test("objects keep member order through parse and serialize")
    func orderPreserved() throws {
        let text = #"{"z":1,"a":[true,false,null],"m":{"y":"x","b":-2.5},"e":""}"#
        let value = try parse(text)
        #expect(String(decoding: value.serialize(), as: UTF8.self) == text)
        #expect(value.objectValue?.map(\.0) == ["z", "a", "m", "e"])
        #expect(value["m"]?["b"] == .double(-2.5))
    }

    @Test("numbers: 64-bit integers stay integers, others are doubles")
    func numbers() throws {
        #expect(try parse("0") == .int(0))
        #expect(try parse("-9223372036854775808") == .int(.min))
        #expect(try parse("9223372036854775807") == .int(.max))
        #expect(try parse("9223372036854775808") == .double(9223372036854775808))
        #expect(try parse("1.5e3") == .double(1500))
        #expect(try parse("1E-2") == .double(0.01))
        #expect(JSONValue.int(-1234567890123).description == "-1234567890123")
        #expect(JSONValue.double(.infinity).description == "null")
    }

    @Test("string escapes decode, including surrogate pairs, and serialize back escaped")
    func strings() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\té😀"))
        #expect(try parse("\"é😀\"") == .string("é😀"))
        let tricky = JSONValue.string("q\"\\\n\u{1}</")
        #expect(tricky.description == #""q\"\\\n\u0001</""#)
        #expect(try parse(tricky.description) == tricky)
    }

    @Test(
        "strict: refuses what RFC 8259 does not allow, duplicates, and deep nesting",
        arguments: [
            "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "-", "1.", ".5", "1e", "+1", "NaN",
            "Infinity", "tru", "nulll", "\"abc", "\"\u{1}\"", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"",
            "\"\\ud83d\\u0041\"", "{\"a\":1,\"a\":2}", "[1] [2]", "// c\n1", "'a'", "1e999",
            String(repeating: "[", count: 17) + String(repeating: "]", count: 17),
        ])
    func refusals(_ text: String) {
        #expect(throws: JSONValue.ParseError.self) { try parse(text) }
    }

    @Test("refuses invalid UTF-8 and input over the size limit")
    func bytesAndLimits() throws {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse([0x22, 0xff, 0x22]) }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse([0x22, 0xc3, 0x22]) }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse([0x22, 0xed, 0xa0, 0x80, 0x22]) }
        #expect(throws: JSONValue.ParseError.self) { try parse("[1,2,3]", limits: .init(maximumBytes: 6)) }
        #expect(try parse("[1,2,3]", limits: .init(maximumBytes: 7)) == [1, 2, 3])
        #expect(try parse(String(repeating: "[", count: 16) + String(repeating: "]", count: 16)) != .null)
    }
}
