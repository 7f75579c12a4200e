import JSON
import Testing

@testable import ServerKit

@Suite("RequestBody: one way to read a JSON request body")
struct RequestBodyTests {
    private func body(_ text: String) -> RequestBody? { RequestBody(json: Array(text.utf8)) }

    @Test("an object parses; anything else does not", arguments: ["[]", "\"x\"", "1", "", "{", "{\"a\":}", "null"])
    func onlyObjects(_ text: String) {
        #expect(body(text) == nil)
    }

    @Test("members keep their JSON types: integers apart from other numbers, nested objects, null")
    func types() throws {
        let object = try #require(body(#"{"s":"t","i":42,"n":1.5,"b":true,"z":null,"o":{"k":[1,"x"]}}"#))
        #expect(object["s"] == .string("t"))
        #expect(object["i"] == .integer(42))
        #expect(object["n"] == .number(1.5))
        #expect(object["b"] == .bool(true))
        #expect(object["z"] == .null)
        #expect(object["o"]?.members?["k"] == .array([.integer(1), .string("x")]))
        #expect(object["missing"] == nil)
    }

    @Test("string(_:) is nil for absent or null and throws for another type")
    func strings() throws {
        let object = try #require(body(#"{"s":"t","z":null,"i":1}"#))
        #expect(try object.string("s") == "t")
        #expect(try object.string("z") == nil)
        #expect(try object.string("absent") == nil)
        #expect(throws: RequestBody.TypeMismatch.self) { try object.string("i") }
    }

    /// `{"a":[[…]]}` nesting `depth` deep in all (the object counts as one).
    static func nested(depth: Int) -> String {
        #"{"a":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
    }

    @Test("a duplicate key is refused, at the top and deeper, whatever the values")
    func duplicateKeys() {
        #expect(body(#"{"a":1,"a":1}"#) == nil)
        #expect(body(#"{"a":1,"b":2,"a":"x"}"#) == nil)
        #expect(body(#"{"o":{"k":1,"k":2}}"#) == nil)
        #expect(body(#"{"a":1,"b":{"a":2}}"#) != nil)
    }

    @Test("nesting: 32 deep parses, 33 is refused (JSONValue.Limits.requestBody, the rule of every surface)")
    func depth() {
        #expect(JSONValue.Limits.requestBodyDepth == 32)
        #expect(body(Self.nested(depth: 32)) != nil)
        #expect(body(Self.nested(depth: 33)) == nil)
        #expect(body(Self.nested(depth: 500)) == nil)
    }

    @Test("a whole number written with a fraction or exponent reads as an integer; other numbers stay numbers")
    func wholeNumbers() throws {
        let object = try #require(body(#"{"a":1.0,"b":1e2,"c":-0.0,"d":2.5,"e":1e300}"#))
        #expect(object["a"] == .integer(1))
        #expect(object["b"] == .integer(100))
        #expect(object["c"] == .integer(0))
        #expect(object["d"] == .number(2.5))
        #expect(object["e"] == .number(1e300))
    }
}
