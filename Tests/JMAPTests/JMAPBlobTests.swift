import Foundation
import PosternTestSupport
import Testing

/// Blobs: `Blob/upload`, attachments by creation id, the download URL, the upload URL and `Blob/get`.
@Suite("JMAP blobs and attachments")
struct JMAPBlobTests {
    /// Bytes every value of which occurs, CR, LF and NUL among them.
    static let payload: [UInt8] = (0..<1000).map { UInt8(($0 * 37 + 11) % 256) }

    @Test(
        "Blob/upload, attachment by #b1, sent to B: B sees name/type/size and downloads the exact bytes",
        arguments: StorageBackend.allCases)
    func attachmentRoundTrip(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")

        let upload: [Any] = [
            "Blob/upload",
            ["accountId": a.accountID,
             "create": ["b1": ["data": [["data:asBase64": Data(Self.payload).base64EncodedString()]],
                               "type": "application/x-postern-test"]]],
            "u",
        ]
        let responses = try await harness.send(
            from: a, to: [b.address], subject: "With a file", text: "See attached.",
            extraEmail: ["attachments": [["blobId": "#b1", "name": "report.bin"]]], before: [upload])
        try #require(responses.count == 3, "\(responses.map { ($0.name, $0.arguments) })")
        #expect(responses[0].name == "Blob/upload")
        let blob = try #require(responses[0].object("created")?["b1"] as? [String: Any], "\(responses[0].arguments)")
        #expect(blob["size"] as? Int == Self.payload.count)
        #expect(blob["type"] as? String == "application/x-postern-test")
        #expect(responses[1].object("created")?["d1"] != nil, "\(responses[1].arguments)")
        let submission = try #require(
            responses[2].object("created")?["s1"] as? [String: Any], "\(responses[2].arguments)")
        #expect(((submission["deliveryStatus"] as? [String: Any])?[b.address] as? [String: Any])?["delivered"]
            as? String == "yes")

        let inbox = try await harness.ids(b, in: "inbox")
        try #require(inbox.count == 1)
        let email = try #require(
            try await harness.emails(b, inbox, properties: ["attachments", "hasAttachment"]).first)
        #expect(email["hasAttachment"] as? Bool == true)
        let attachments = try #require(email["attachments"] as? [[String: Any]])
        try #require(attachments.count == 1, "\(attachments)")
        let attachment = attachments[0]
        #expect(attachment["name"] as? String == "report.bin")
        #expect(attachment["type"] as? String == "application/x-postern-test")
        #expect(attachment["size"] as? Int == Self.payload.count)
        let blobID = try #require(attachment["blobId"] as? String)

        let session = try await harness.session(token: b.capability).json()
        let template = try #require(session["downloadUrl"] as? String)
        let url = template.replacingOccurrences(of: "{accountId}", with: b.accountID)
            .replacingOccurrences(of: "{blobId}", with: blobID).replacingOccurrences(of: "{name}", with: "report.bin")
            .replacingOccurrences(of: "{type}", with: "application%2Foctet-stream")
        try #require(url.hasPrefix(harness.baseURL))
        let download = try await harness.client.request(
            "GET", String(url.dropFirst(harness.baseURL.count)),
            headers: [("Authorization", "Bearer \(b.capability)")])
        #expect(download.status == 200, "\(download.text)")
        #expect(download.body == Self.payload)
        #expect(download.header("Content-Type") == "application/octet-stream", "the URL's type, percent-decoded")
        let disposition = try #require(download.header("Content-Disposition"))
        #expect(disposition == #"attachment; filename="report.bin""#, "\(disposition)")
        #expect(download.header("X-Content-Type-Options") == "nosniff")
        #expect(download.header("Content-Security-Policy") == "default-src 'none'; sandbox")

        // The blob is B's: A's token cannot fetch it, and another account id is 404 for B too.
        let foreign = try await harness.client.request(
            "GET", String(url.dropFirst(harness.baseURL.count)),
            headers: [("Authorization", "Bearer \(a.capability)")])
        #expect(foreign.status == 404)
    }

    @Test(
        "POST to the upload URL is 201 with a blobId, and Blob/get reads it back as data:asText",
        arguments: StorageBackend.allCases)
    func uploadURLAndBlobGet(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let text = "Uploaded through the upload URL ✓\r\nsecond line"

        let session = try await harness.session(token: a.capability).json()
        let template = try #require(session["uploadUrl"] as? String)
        let url = template.replacingOccurrences(of: "{accountId}", with: a.accountID)
        try #require(url.hasPrefix(harness.baseURL))
        let upload = try await harness.client.request(
            "POST", String(url.dropFirst(harness.baseURL.count)),
            headers: [("Authorization", "Bearer \(a.capability)"), ("Content-Type", "text/plain; charset=utf-8")],
            body: Array(text.utf8))
        #expect(upload.status == 201, "\(upload.text)")
        let uploaded = try upload.json()
        let blobID = try #require(uploaded["blobId"] as? String)
        #expect(uploaded["accountId"] as? String == a.accountID)
        #expect(uploaded["size"] as? Int == text.utf8.count)
        #expect(uploaded["type"] as? String == "text/plain; charset=utf-8")

        let get = try await harness.single(
            a, "Blob/get", ["accountId": a.accountID, "ids": [blobID, "Bnosuchblob"], "properties": ["data:asText", "size"]])
        #expect(get.name == "Blob/get", "\(get.arguments)")
        let list = try #require(get.arguments["list"] as? [[String: Any]])
        try #require(list.count == 1)
        #expect(list[0]["id"] as? String == blobID)
        #expect(list[0]["data:asText"] as? String == text)
        #expect(list[0]["size"] as? Int == text.utf8.count)
        #expect(get.arguments["notFound"] as? [String] == ["Bnosuchblob"])

        // Another account id in the upload URL is refused.
        let wrong = try await harness.client.request(
            "POST", "/jmap/upload/someone-else",
            headers: [("Authorization", "Bearer \(a.capability)")], body: Array("x".utf8))
        #expect(wrong.status == 404)
    }
}
