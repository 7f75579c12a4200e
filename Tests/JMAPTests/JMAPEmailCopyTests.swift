import Foundation
import PosternTestSupport
import Testing

/// `Email/copy` (RFC 8621 §4.7, RFC 8620 §5.4) for a session that holds one account: copying within it is
/// `invalidArguments` (`accountId` MUST differ from `fromAccountId`), another account's id is `fromAccountNotFound`,
/// and nothing is written either way.
@Suite("JMAP Email/copy")
struct JMAPEmailCopyTests {
    private func errorType(_ invocation: JMAPInvocation) -> String? {
        invocation.name == "error" ? invocation.arguments["type"] as? String : nil
    }

    @Test("same account invalidArguments, another fromAccountNotFound, a foreign accountId accountNotFound", arguments: StorageBackend.allCases)
    func oneAccountSession(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("copyfrom")
        let b = try await harness.signUp("copyinto")
        _ = try await harness.send(from: a, to: [b.address], subject: "Copy me", text: "Once.")
        let id = try #require(try await harness.ids(b, in: "inbox").first)
        let create: [String: Any] = ["c": ["id": id, "mailboxIds": ["archive": true], "keywords": ["$seen": true]]]
        let before = try await harness.single(b, "Email/get", ["accountId": b.accountID, "ids": [String]()])

        let same = try await harness.single(
            b, "Email/copy", ["fromAccountId": b.accountID, "accountId": b.accountID, "create": create])
        #expect(errorType(same) == "invalidArguments", "\(same.arguments)")
        let other = try await harness.single(
            b, "Email/copy",
            ["fromAccountId": a.accountID, "accountId": b.accountID, "create": create, "onSuccessDestroyOriginal": true])
        #expect(errorType(other) == "fromAccountNotFound", "\(other.arguments)")
        let foreign = try await harness.single(
            b, "Email/copy", ["fromAccountId": b.accountID, "accountId": a.accountID, "create": create])
        #expect(errorType(foreign) == "accountNotFound", "\(foreign.arguments)")
        let noFrom = try await harness.single(b, "Email/copy", ["accountId": b.accountID, "create": create])
        #expect(errorType(noFrom) == "invalidArguments", "\(noFrom.arguments)")
        let badType = try await harness.single(
            b, "Email/copy",
            ["fromAccountId": a.accountID, "accountId": b.accountID, "create": create, "ifFromInState": 7])
        #expect(errorType(badType) == "invalidArguments", "the arguments' types come before the account")

        let after = try await harness.single(b, "Email/get", ["accountId": b.accountID, "ids": [String]()])
        #expect(after.arguments["state"] as? String == before.arguments["state"] as? String, "nothing was written")
        #expect(try await harness.ids(b, in: "archive").isEmpty)
        #expect(try await harness.ids(b, in: "inbox") == [id])
    }
}
