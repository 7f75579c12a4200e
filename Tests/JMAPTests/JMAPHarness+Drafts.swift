import Foundation
import PosternTestSupport
import Testing

extension JMAPHarness {
    /// Writes a one-line text draft in `agent`'s Drafts with `keywords` through Email/set; returns its id.
    func draft(_ agent: JMAPAgent, subject: String, keywords: [String: Bool] = [:]) async throws -> String {
        let created = try await single(
            agent, "Email/set",
            ["accountId": agent.accountID,
             "create": ["d": ["mailboxIds": ["drafts": true], "subject": subject, "keywords": keywords,
                              "textBody": [["partId": "b", "type": "text/plain"]], "bodyValues": ["b": ["value": "x"]]]]])
        return try #require(
            (created.object("created")?["d"] as? [String: Any])?["id"] as? String, "\(created.arguments)")
    }
}
