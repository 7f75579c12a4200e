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
}
