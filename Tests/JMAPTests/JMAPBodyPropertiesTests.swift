import Foundation
import PosternTestSupport
import Testing

/// `Email/get`'s `bodyProperties` (RFC 8621 section 4.2): each body part of textBody, htmlBody and attachments has
/// the properties asked for and no others; RFC 8621's ten by default; an unknown one is invalidArguments.
@Suite("JMAP Email/get bodyProperties")
struct JMAPBodyPropertiesTests {
    @Test("bodyProperties limits each body part to what it names; absent, the ten defaults; unknown, invalidArguments")
    func bodyPropertiesLimitParts() async throws {
        let harness = try await JMAPHarness.start(.sqlite)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        let id = try await harness.draft(alice, subject: "Parts")

        func textPart(_ extra: [String: Any]) async throws -> [String: Any]? {
            let get = try await harness.single(
                alice, "Email/get",
                ["accountId": alice.accountID, "ids": [id], "properties": ["textBody"]].merging(extra) { $1 })
            return ((get.arguments["list"] as? [[String: Any]])?.first?["textBody"] as? [[String: Any]])?.first
        }
        let limited = try #require(try await textPart(["bodyProperties": ["type", "partId"]]))
        #expect(Set(limited.keys) == ["type", "partId"], "\(limited)")
        #expect(limited["type"] as? String == "text/plain")
        let defaults = try #require(try await textPart([:]))
        #expect(
            Set(defaults.keys)
                == ["partId", "blobId", "size", "name", "type", "charset", "disposition", "cid", "language", "location"])

        let unknown = try await harness.single(
            alice, "Email/get",
            ["accountId": alice.accountID, "ids": [id], "properties": ["textBody"], "bodyProperties": ["nope"]])
        #expect(JMAPHarness.errorType(unknown) == "invalidArguments", "\(unknown.arguments)")
    }
}
