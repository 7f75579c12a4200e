import Foundation
import Testing

/// Sends from the owner's inbox ada to bob (``OwnedInboxesFixture``) with a draft marked `$draft` and the given
/// submission members, then reads the email back: what a `mail.send` grant may do to the submitted copy, over JMAP
/// and over MCP's `jmap_request`.
public struct SubmissionOutcomes: Sendable {
    let owners: OwnedInboxesFixture
    /// Runs method calls with a token; the method responses.
    let run: @Sendable ([[Any]], String) async throws -> [[Any]]

    public init(owners: OwnedInboxesFixture, run: @escaping @Sendable ([[Any]], String) async throws -> [[Any]]) {
        self.owners = owners
        self.run = run
    }

    public struct Outcome {
        public let id: String
        /// The implicit Email/set's response.
        public let implicit: [String: Any]

        public var updated: [String] { ((implicit["updated"] as? [String: Any]) ?? [:]).keys.sorted() }

        /// The error type the implicit Email/set gave the email under `member` (`notUpdated`, `notDestroyed`).
        public func error(in member: String) -> String? {
            ((implicit[member] as? [String: Any])?[id] as? [String: Any])?["type"] as? String
        }
    }

    /// Sends with `submission`'s members, with `token`.
    public func send(_ submission: [String: Any], token: String) async throws -> Outcome {
        let echo: [Any] = ["Core/echo", ["x": ["#s": ["mailboxIds": ["inbox": true]]]], "e"]
        let calls = [echo] + OwnedInboxesFixture.sendCalls(
            from: owners.ada.address, to: owners.bob.address, keywords: ["$draft": true], submission: submission)
        let answers = try await run(calls, token)
        let created = answers.first { $0[0] as? String == "Email/set" && $0[2] as? String == "c" }
        let id = try #require(
            ((created?[1] as? [String: Any])?["created"] as? [String: Any])?["d"] as? [String: Any])["id"] as? String
        let submitted = answers.first { $0[0] as? String == "EmailSubmission/set" }?[1] as? [String: Any]
        #expect((submitted?["created"] as? [String: Any])?["s"] != nil, "\(answers)")
        let implicit = answers.first { $0[0] as? String == "Email/set" && $0[2] as? String == "s" }
        return Outcome(id: try #require(id), implicit: try #require(implicit?[1] as? [String: Any], "\(answers)"))
    }

    /// The mailboxes and keywords of email `id`, read with `token`.
    public func email(_ id: String, token: String) async throws -> (mailboxes: [String], keywords: [String]) {
        let answers = try await run(
            [["Email/get", ["ids": [id], "properties": ["mailboxIds", "keywords"]], "g"]], token)
        let email = try #require(((answers.first?[1] as? [String: Any])?["list"] as? [[String: Any]])?.first)
        return (
            ((email["mailboxIds"] as? [String: Any]) ?? [:]).keys.sorted(),
            ((email["keywords"] as? [String: Any]) ?? [:]).keys.sorted()
        )
    }
}
