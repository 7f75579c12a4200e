import Foundation
import PosternTestSupport
import Testing

/// Keywords are case-insensitive and come back in lowercase (RFC 8621 section 4.1.1: "Because JSON is
/// case-sensitive, servers MUST return keywords in lowercase"), whichever way a client wrote them.
@Suite("JMAP keywords in lowercase")
struct JMAPKeywordCaseTests {
    @Test("Email/set create, update and Email/query take keywords in any case and answer them in lowercase")
    func keywordsAreLowercase() async throws {
        let harness = try await JMAPHarness.start(.sqlite)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        let id = try await harness.draft(alice, subject: "Cased", keywords: ["Foo": true, "$Seen": true])
        let afterCreate = try #require(try await harness.emails(alice, [id], properties: ["keywords"]).first)
        #expect(afterCreate["keywords"] as? [String: Bool] == ["foo": true, "$seen": true])

        let updated = try await harness.single(
            alice, "Email/set", ["accountId": alice.accountID, "update": [id: ["keywords/BAR": true, "keywords/FOO": NSNull()]]])
        #expect((updated.object("updated")?.keys).map(Array.init) == [id], "\(updated.arguments)")
        let afterUpdate = try #require(try await harness.emails(alice, [id], properties: ["keywords"]).first)
        #expect(afterUpdate["keywords"] as? [String: Bool] == ["bar": true, "$seen": true])

        let found = try await harness.single(
            alice, "Email/query", ["accountId": alice.accountID, "filter": ["hasKeyword": "Bar"]])
        #expect(found.arguments["ids"] as? [String] == [id], "\(found.arguments)")
        let excluded = try await harness.single(
            alice, "Email/query", ["accountId": alice.accountID, "filter": ["notKeyword": "$SEEN"]])
        #expect(excluded.arguments["ids"] as? [String] == [], "\(excluded.arguments)")
    }
}
