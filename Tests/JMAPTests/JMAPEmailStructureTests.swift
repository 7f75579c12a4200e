import Foundation
import PosternTestSupport
import Testing

/// RFC 8621 section 4.6 create with `bodyStructure` and `header:` properties, read back through section 4.1.4's
/// `bodyStructure`, `headers` and `header:` forms; the refusals that name the property at fault by its path; and
/// section 4.4.1's thread keyword filters.
@Suite("JMAP Email body structure, header properties and thread keyword filters")
struct JMAPEmailStructureTests {
    static func created(_ response: JMAPInvocation, _ id: String = "n") -> [String: Any]? {
        response.object("created")?[id] as? [String: Any]
    }

    static func refusal(_ response: JMAPInvocation, _ id: String = "n") -> (String?, [String]?) {
        let error = response.object("notCreated")?[id] as? [String: Any]
        return (error?["type"] as? String, error?["properties"] as? [String])
    }

    @Test("a bodyStructure with a text part and an uploaded attachment, header: fields on the Email and the part")
    func createAndRead() async throws {
        let harness = try await JMAPHarness.start(.sqlite)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        let upload = try await harness.single(
            alice, "Blob/upload",
            ["accountId": alice.accountID, "create": ["b": ["data": [["data:asText": "a,b\n1,2\n"]], "type": "text/csv"]]])
        let blob = try #require((upload.object("created")?["b"] as? [String: Any])?["id"] as? String)
        let create = try await harness.single(
            alice, "Email/set",
            ["accountId": alice.accountID, "create": ["n": [
                "mailboxIds": ["drafts": true], "header:From": "Alice <alice@agents.test>",
                "header:X-Note:asText": "caf\u{E9}", "header:List-Post:asURLs": ["mailto:l@agents.test"],
                "bodyStructure": [
                    "type": "multipart/mixed",
                    "subParts": [
                        ["partId": "t", "type": "text/plain", "header:X-Part": "inner", "language": ["en"]],
                        ["blobId": blob, "type": "text/csv", "name": "data.csv", "disposition": "attachment", "size": 8],
                    ],
                ],
                "bodyValues": ["t": ["value": "Hello\r\nthere"]],
            ]]])
        let id = try #require(Self.created(create)?["id"] as? String, "\(create.arguments)")
        let get = try await harness.single(
            alice, "Email/get",
            ["accountId": alice.accountID, "ids": [id], "fetchAllBodyValues": true,
             "properties": ["from", "bodyStructure", "textBody", "attachments", "bodyValues", "headers",
                            "header:X-Note:asText", "header:List-Post:asURLs", "header:x-note:all"],
             "bodyProperties": ["partId", "blobId", "type", "charset", "name", "size", "language", "header:X-Part"]])
        let email = try #require((get.arguments["list"] as? [[String: Any]])?.first, "\(get.arguments)")
        #expect((email["from"] as? [[String: Any]])?.first?["email"] as? String == "alice@agents.test")
        #expect(email["header:X-Note:asText"] as? String == "caf\u{E9}")
        #expect(email["header:List-Post:asURLs"] as? [String] == ["mailto:l@agents.test"])
        #expect((email["header:x-note:all"] as? [String])?.count == 1)
        let headers = try #require(email["headers"] as? [[String: Any]])
        #expect(headers.contains { $0["name"] as? String == "From" && $0["value"] as? String == " Alice <alice@agents.test>" })
        let structure = try #require(email["bodyStructure"] as? [String: Any])
        #expect(structure["type"] as? String == "multipart/mixed" && structure["partId"] is NSNull)
        let parts = try #require(structure["subParts"] as? [[String: Any]])
        try #require(parts.count == 2)
        #expect(parts[0]["type"] as? String == "text/plain" && parts[0]["charset"] as? String == "us-ascii")
        #expect(parts[0]["header:X-Part"] as? String == " inner" && parts[0]["language"] as? [String] == ["en"])
        #expect(parts[1]["name"] as? String == "data.csv" && parts[1]["size"] as? Int == 8)
        let textID = try #require(parts[0]["partId"] as? String)
        #expect((email["textBody"] as? [[String: Any]])?.map { $0["partId"] as? String } == [textID])
        #expect((email["attachments"] as? [[String: Any]])?.first?["blobId"] as? String == parts[1]["blobId"] as? String)
        let value = (email["bodyValues"] as? [String: Any])?[textID] as? [String: Any]
        #expect(value?["value"] as? String == "Hello\nthere" && value?["isTruncated"] as? Bool == false)

        let attachmentBlob = try #require(parts[1]["blobId"] as? String)
        let blobGet = try await harness.single(
            alice, "Blob/get", ["accountId": alice.accountID, "ids": [attachmentBlob], "properties": ["data:asText"]])
        #expect((blobGet.arguments["list"] as? [[String: Any]])?.first?["data:asText"] as? String == "a,b\n1,2\n")
    }

    @Test("refusals name the property at fault: repeated structure or field, Content-* on the Email, headers, size")
    func refusals() async throws {
        let harness = try await JMAPHarness.start(.sqlite)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        func create(_ email: [String: Any]) async throws -> (String?, [String]?) {
            let response = try await harness.single(
                alice, "Email/set",
                ["accountId": alice.accountID,
                 "create": ["n": (["mailboxIds": ["drafts": true], "bodyValues": ["t": ["value": "x"]]] as [String: Any]).merging(email) { $1 }]])
            return Self.refusal(response)
        }
        let text: [String: Any] = ["partId": "t", "type": "text/plain"]
        let cases: [([String: Any], [String])] = [
            (["bodyStructure": text, "textBody": [text]], ["textBody"]),
            (["header:Content-Type": "text/plain"], ["header:Content-Type"]),
            (["subject": "a", "header:Subject": "b"], ["header:Subject"]),
            (["header:Date:asText": "x"], ["header:Date:asText"]),
            (["header:foo": ["a", "b"]], ["header:foo"]),
            (["bodyStructure": text.merging(["headers": []]) { $1 }], ["bodyStructure/headers"]),
            (["bodyStructure": text.merging(["size": 1]) { $1 }], ["bodyStructure/size"]),
            (["bodyStructure": text.merging(["header:Content-Transfer-Encoding": "7bit"]) { $1 }],
             ["bodyStructure/header:Content-Transfer-Encoding"]),
            (["bodyStructure": text, "bodyValues": ["t": ["value": "x", "isTruncated": true]]],
             ["bodyValues/t/isTruncated"]),
        ]
        for (email, properties) in cases {
            let (type, given) = try await create(email)
            #expect(type == "invalidProperties" && given == properties, "\(email): \(String(describing: given))")
        }
    }

    /// RFC 8621 section 4.6: no two properties represent one field, within the Email or one part, and the root part
    /// (`bodyStructure`, or a lone `textBody` or `htmlBody`), whose header lines are the message's, repeats none the
    /// Email gives, by a `header:` property or a convenience one; a part inside a multipart may.
    @Test("a field given twice (two forms, or the Email and its root part) is refused; an inner part's is kept")
    func repeatedFields() async throws {
        let harness = try await JMAPHarness.start(.sqlite)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        func create(_ email: [String: Any]) async throws -> JMAPInvocation {
            try await harness.single(
                alice, "Email/set",
                ["accountId": alice.accountID,
                 "create": ["n": (["mailboxIds": ["drafts": true], "bodyValues": ["t": ["value": "x"]]] as [String: Any]).merging(email) { $1 }]])
        }
        let text: [String: Any] = ["partId": "t", "type": "text/plain"]
        // Each refusal names the `header:` property that repeats; of two `header:` ones, the one read second.
        let refused: [([String: Any], Set<String>)] = [
            (["from": [["email": "alice@agents.test"]], "bodyStructure": text.merging(["header:From": "a@agents.test"]) { $1 }],
             ["bodyStructure/header:From"]),
            (["subject": "s", "textBody": [text.merging(["header:Subject:asText": "t"]) { $1 }]],
             ["textBody/0/header:Subject:asText"]),
            (["sentAt": "2026-01-31T12:00:00Z", "htmlBody": [text.merging(["header:date:asDate": "2026-01-31T12:00:00Z"]) { $1 }]],
             ["htmlBody/0/header:date:asDate"]),
            (["header:X-Note": "a", "bodyStructure": text.merging(["header:x-note:asText": "b"]) { $1 }],
             ["bodyStructure/header:x-note:asText"]),
            (["header:Subject": "a", "header:subject:asText": "b"], ["header:Subject", "header:subject:asText"]),
            (["bodyStructure": text.merging(["header:X-A": "a", "header:x-a:asText": "b"]) { $1 }],
             ["bodyStructure/header:X-A", "bodyStructure/header:x-a:asText"]),
        ]
        for (email, named) in refused {
            let (type, given) = Self.refusal(try await create(email))
            #expect(type == "invalidProperties" && given?.count == 1 && named.contains(given?.first ?? ""),
                    "\(email): \(String(describing: type)) \(String(describing: given))")
        }
        let inner = try await create([
            "subject": "outer", "from": [["email": "alice@agents.test"]],
            "bodyStructure": ["type": "multipart/mixed", "subParts": [text.merging(["header:Subject": "inner"]) { $1 }]],
        ])
        let id = try #require(Self.created(inner)?["id"] as? String, "\(inner.arguments)")
        let get = try await harness.single(
            alice, "Email/get",
            ["accountId": alice.accountID, "ids": [id], "properties": ["subject", "header:Subject:all", "bodyStructure"],
             "bodyProperties": ["header:Subject"]])
        let email = try #require((get.arguments["list"] as? [[String: Any]])?.first, "\(get.arguments)")
        #expect(email["subject"] as? String == "outer" && (email["header:Subject:all"] as? [String])?.count == 1)
        let parts = (email["bodyStructure"] as? [String: Any])?["subParts"] as? [[String: Any]]
        #expect(parts?.first?["header:Subject"] as? String == " inner", "\(email)")
    }

    @Test("allInThreadHaveKeyword, someInThreadHaveKeyword, noneInThreadHaveKeyword", arguments: StorageBackend.allCases)
    func threadKeywords(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let alice = try await harness.signUp("alice")
        func draft(_ name: String, flagged: Bool, extra: [String: Any] = [:]) async throws -> [String: Any] {
            let response = try await harness.single(
                alice, "Email/set",
                ["accountId": alice.accountID, "create": ["n": [
                    "mailboxIds": ["drafts": true], "subject": name, "keywords": flagged ? ["$flagged": true] : [:],
                    "messageId": [name + "@agents.test"], "textBody": [["partId": "t"]], "bodyValues": ["t": ["value": name]],
                ].merging(extra) { $1 }]])
            return try #require(Self.created(response), "\(response.arguments)")
        }
        let first = try await draft("first", flagged: true)
        let reply = try await draft("reply", flagged: false, extra: ["inReplyTo": ["first@agents.test"], "references": ["first@agents.test"]])
        try #require(first["threadId"] as? String == reply["threadId"] as? String)
        let alone = try await draft("alone", flagged: true)
        let plain = try await draft("plain", flagged: false)
        func query(_ condition: String) async throws -> Set<String> {
            let response = try await harness.single(
                alice, "Email/query", ["accountId": alice.accountID, "filter": [condition: "$flagged"]])
            return Set(try #require(response.arguments["ids"] as? [String], "\(response.arguments)"))
        }
        let ids = [first, reply, alone, plain].map { $0["id"] as? String ?? "" }
        #expect(try await query("allInThreadHaveKeyword") == [ids[2]])
        #expect(try await query("someInThreadHaveKeyword") == [ids[0], ids[1], ids[2]])
        #expect(try await query("noneInThreadHaveKeyword") == [ids[3]])
    }
}
