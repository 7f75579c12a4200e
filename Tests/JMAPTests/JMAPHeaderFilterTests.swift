import Foundation
import PosternTestSupport
import Testing

/// `Email/query`'s `header` condition (RFC 8621 section 4.4.1), the store's one filter (``MailFilter``) on both
/// backends: the field by its name without case, its value (unfolded) holding the text without ASCII case, the body
/// and the other fields never taken for it.
@Suite("JMAP Email/query header filter")
struct JMAPHeaderFilterTests {
    /// The messages imported, by name: CRLF and LF-only ones, a folded value, a space before the colon, UTF-8, LIKE's
    /// wildcards and its escape in a value, and a body that spells a header line.
    static let messages: [(String, String)] = [
        ("one", "From: a@example.org\r\nX-Foo: bar\r\nSubject: one\r\n\r\nBody.\r\n"),
        ("two", "From: a@example.org\r\nx-foo: baz\r\nX-Bar: bar\r\nSubject: two\r\n\r\nBody.\r\n"),
        ("folded", "From: a@example.org\nX-Foo:\n  folded BAR\nSubject: folded\n\nBody.\n"),
        ("spaced", "From: a@example.org\r\nX-Foo : spaced\r\nSubject: spaced\r\n\r\nBody.\r\n"),
        ("utf8", "From: a@example.org\r\nX-Note: caf\u{E9}\r\nSubject: utf8\r\n\r\nX-Foo: bar\r\n"),
        ("wild", "From: a@example.org\r\nX-Path: a\\b%c\r\nSubject: wild\r\n\r\nBody.\r\n"),
    ]

    @Test("header [name] and [name, text]: the field's own value, unfolded, without ASCII case", arguments: StorageBackend.allCases)
    func headerCondition(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        var ids: [String: String] = [:]
        for (name, raw) in Self.messages {
            let blob = try await JMAPEmailImportTests.upload(harness, alice, raw)
            let imported = try await harness.single(
                alice, "Email/import",
                ["accountId": alice.accountID, "emails": ["m": ["blobId": blob, "mailboxIds": ["inbox": true]]]])
            ids[name] = try #require((imported.object("created")?["m"] as? [String: Any])?["id"] as? String,
                                    "\(name): \(imported.arguments)")
        }
        func query(_ filter: [String: Any]) async throws -> JMAPInvocation {
            try await harness.single(alice, "Email/query", ["accountId": alice.accountID, "filter": filter])
        }
        func names(_ filter: [String: Any]) async throws -> Set<String> {
            let response = try await query(filter)
            let found = Set(try #require(response.arguments["ids"] as? [String], "\(filter): \(response.arguments)"))
            return Set(ids.filter { found.contains($0.value) }.keys)
        }
        #expect(try await names(["header": ["x-foo"]]) == ["one", "two", "folded", "spaced"])
        #expect(try await names(["header": ["X-FOO", "BAR"]]) == ["one", "folded"])
        #expect(try await names(["header": ["x-foo", "folded bar"]]) == ["folded"])
        #expect(try await names(["header": ["x-foo", "spaced"]]) == ["spaced"])
        #expect(try await names(["header": ["x-bar", "bar"]]) == ["two"])
        #expect(try await names(["header": ["X-Note", "CAF\u{E9}"]]) == ["utf8"])
        #expect(try await names(["header": ["x-note", "caf\u{C9}"]]) == [])
        #expect(try await names(["header": ["x-path", "a\\b%"]]) == ["wild"])
        #expect(try await names(["header": ["x-path", "a_b"]]) == [])
        #expect(try await names(["header": ["x-foo", ""]]) == ["one", "two", "folded", "spaced"])
        #expect(try await names(["header": ["X-Missing"]]) == [])
        #expect(
            try await names(["operator": "NOT", "conditions": [["header": ["x-foo", "bar"]]]])
                == ["two", "spaced", "utf8", "wild"])
        #expect(try await names(["header": ["subject", "o"]]) == ["one", "two", "folded"])

        for bad: Any in [[] as [Any], ["a", "b", "c"], ["bad name"], ["x:y"], [1], "x-foo"] {
            let response = try await query(["header": bad])
            #expect(response.name == "error" && response.arguments["type"] as? String == "invalidArguments",
                    "\(bad): \(response.arguments)")
        }
    }

    @Test("a message with no body is read up to the section's bound: a field before it is found, one past it is not", arguments: StorageBackend.allCases)
    func boundedSection(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        // 980 fields of 72 bytes (about 69 KiB, past the 64 KiB read) and no empty line: all header section.
        let filler = (0..<980).map { "X-Filler-\(String(format: "%03d", $0)): " + String(repeating: "v", count: 54) + "\r\n" }
        let raw = "From: a@example.org\r\nX-First: early\r\n" + filler.joined() + "X-Late: late\r\n"
        let blob = try await JMAPEmailImportTests.upload(harness, alice, raw)
        let imported = try await harness.single(
            alice, "Email/import",
            ["accountId": alice.accountID, "emails": ["m": ["blobId": blob, "mailboxIds": ["inbox": true]]]])
        let id = try #require((imported.object("created")?["m"] as? [String: Any])?["id"] as? String, "\(imported.arguments)")
        func ids(_ header: [String]) async throws -> [String] {
            let response = try await harness.single(
                alice, "Email/query", ["accountId": alice.accountID, "filter": ["header": header]])
            return try #require(response.arguments["ids"] as? [String], "\(response.arguments)")
        }
        #expect(try await ids(["x-first", "early"]) == [id])
        #expect(try await ids(["x-filler-010"]) == [id])
        #expect(try await ids(["x-late"]) == [], "past the section's 64 KiB")
    }
}
