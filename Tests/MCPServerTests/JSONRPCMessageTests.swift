import JSON
import MCPServer
import Testing

@Suite("JSONRPCMessage")
struct JSONRPCMessageTests {
    func parse(_ text: String) throws(JSONRPCError) -> JSONRPCMessage {
        try JSONRPCMessage.parse(Array(text.utf8), maximumBytes: 1024)
    }

    @Test("a request, a notification and a response are told apart")
    func kinds() throws {
        guard case .request(let id, let method, let params) = try parse(
            #"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"cursor":"x"}}"#)
        else { Issue.record("not a request"); return }
        #expect(id == "a" && method == "tools/list" && params.map(\.0) == ["cursor"])
        guard case .notification(let name) = try parse(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        else { Issue.record("not a notification"); return }
        #expect(name == "notifications/initialized")
        guard case .response = try parse(#"{"jsonrpc":"2.0","id":3,"result":{}}"#) else {
            Issue.record("not a response"); return
        }
    }

    @Test("each malformed body is the JSON-RPC error it is owed, with the id when one could be read")
    func errors() {
        let cases: [(String, JSONRPCError.Code, JSONValue)] = [
            ("{", .parseError, .null),
            (#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, .invalidRequest, .null),
            (#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, .invalidRequest, 1),
            (#"{"jsonrpc":"2.0","id":2}"#, .invalidRequest, 2),
            (#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, .invalidRequest, .null),
            (#"{"jsonrpc":"2.0","id":"x","method":"ping","params":[1]}"#, .invalidRequest, "x"),
            (#"{"jsonrpc":"2.0","id":4,"method":7}"#, .invalidRequest, 4),
            ("\"" + String(repeating: "a", count: 2000) + "\"", .parseError, .null),
            // The one request-body rule: a duplicate key, or nesting past 32, is not JSON this server reads.
            (#"{"jsonrpc":"2.0","id":5,"method":"ping","method":"tools/list"}"#, .parseError, .null),
            (
                #"{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"# + String(repeating: "[", count: 31)
                    + String(repeating: "]", count: 31) + "}}", .parseError, .null
            ),
        ]
        for (text, code, id) in cases {
            #expect(throws: JSONRPCError.self, "\(text.prefix(40))") { try parse(text) }
            do {
                _ = try parse(text)
            } catch {
                #expect(error.code == code && error.id == id, "\(text.prefix(40))")
                #expect(error.response["error"]?["code"]?.intValue == code.rawValue)
            }
        }
    }
}
