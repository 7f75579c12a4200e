import Testing

@testable import AgentAuth

@Suite("llms.txt")
struct AgentLLMsTextTests {
    /// GitHub-style slugs of the document's headings.
    static func headingSlugs(_ text: String) -> Set<String> {
        var slugs = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop(while: { $0 == "#" }).trimmingPrefix(" ")
            let slug = title.lowercased().compactMap { c -> Character? in
                if c.isLetter || c.isNumber || c == "-" || c == "_" { return c }
                if c == " " { return "-" }
                return nil
            }
            slugs.insert(String(slug))
        }
        return slugs
    }

    @Test("Every docs_url anchor of the error catalogue is a heading of llms.txt")
    func anchorsExist() {
        let slugs = Self.headingSlugs(AgentLLMsText.render(AgentAuthConfiguration()))
        for error in AgentAuthError.catalogue {
            #expect(slugs.contains(error.anchor), "missing #\(error.anchor)")
        }
        for anchor in AgentLLMsText.anchors {
            #expect(slugs.contains(anchor), "missing #\(anchor)")
        }
        #expect(slugs.contains("auth-flow-reference"))
        #expect(slugs.contains("proof-of-work"))
        #expect(slugs.contains("errors"))
    }

    @Test("The guide reflects the live configuration")
    func live() {
        let configuration = AgentAuthConfiguration(
            publicURL: "https://auth.example.test/", powSalt: "my-salt-text", baseDifficulty: 9,
            dynamicDifficulty: false, inboxDomain: "bots.example.test", sessionTTL: 1800)
        let text = AgentLLMsText.render(configuration)
        #expect(text.contains("curl -i -X POST https://auth.example.test/api/v1/challenge"))
        #expect(text.contains("Salt text: `my-salt-text`"))
        #expect(text.contains("Base difficulty on this instance: 9 bits"))
        #expect(text.contains("Dynamic difficulty is off"))
        #expect(text.contains("@bots.example.test"))
        #expect(text.contains("1800 s"))
        #expect(!text.contains("auth.example.test//"))
        let dynamic = AgentLLMsText.render(AgentAuthConfiguration())
        #expect(dynamic.contains("Dynamic difficulty is on"))
        #expect(dynamic.contains("up to 18 bits"))
    }
}
