import Directory
import JSON
import Testing

@testable import MCPServer

@Suite("MCPTool: one value per tool (name, schema, scope need, body)")
struct MCPToolTests {
    static let configuration = MCPConfiguration(baseURL: "https://postern.test/")

    private func tool(_ name: String) throws -> MCPTool {
        try #require(MCPTools.describe(Self.configuration).first { $0.name == name })
    }

    private func needs(_ name: String, _ arguments: JSONValue = [:]) throws -> MailPermissions {
        let tool = try tool(name)
        return tool.needs(try MCPToolArguments(arguments, for: tool, limits: Self.configuration))
    }

    @Test("every tool has one name, and the list follows jmap_request's switch")
    func names() {
        let names = MCPTools.describe(Self.configuration).map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.contains("jmap_request"))
        var off = Self.configuration
        off.jmapRequestEnabled = false
        #expect(MCPTools.describe(off).map(\.name) == names.filter { $0 != "jmap_request" })
    }

    @Test("each tool carries what it needs of the grant")
    func scopeNeeds() throws {
        #expect(try needs("read_inbox") == .read)
        #expect(try needs("search", ["query": "x"]) == .read)
        #expect(try needs("send_email", ["to": "a@example.com", "subject": "s", "body": "b"]) == .send)
        #expect(try needs("reply_to_message", ["message_id": "m", "body": "b"]) == [.read, .send])
        #expect(try needs("jmap_request", ["method_calls": []]) == [])
        #expect(try needs("run_preset", ["name": "list_inbox"]) == .read)
        #expect(try needs("run_preset", ["name": "list_inbox", "dry_run": true]) == [])
        #expect(try needs("run_preset", ["name": "reply", "dry_run": true]) == .read)
        #expect(try needs("run_preset", ["name": "send_mail"]) == .send)
        #expect(try needs("help") == [])
        #expect(try needs("list_agents") == [])
    }
}
