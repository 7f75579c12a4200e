import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// `/api/operator/messages/{id}` and the queue reads of the list and `/wait` (issue 51), end to end: mail sent over
/// SMTP into the catch-all, read back whole, raw, by attachment, marked, deleted (SQLite and PostgreSQL).
@Suite("Operator message API: one message, since, start and limit", .timeLimit(.minutes(1)))
struct OperatorMessageAPITests {
    static let auth = OperatorAPITests.auth

    /// A multipart/mixed confirmation mail: a quoted-printable text part whose link is longer than a preview, an
    /// HTML part with an `&amp;` in its href, and a base64 PDF.
    static let confirmation = """
        From: =?UTF-8?Q?App_=C3=A9?= <app@example.com>\r
        To: Ann <ann@example.org>\r
        Cc: audit@example.org\r
        Reply-To: help@example.com\r
        Subject: Confirm your address\r
        Date: Mon, 15 Jun 2025 15:06:40 +0000\r
        Message-ID: <confirm-1@example.com>\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="outer"\r
        \r
        --outer\r
        Content-Type: multipart/alternative; boundary="inner"\r
        \r
        --inner\r
        Content-Type: text/plain; charset=utf-8\r
        Content-Transfer-Encoding: quoted-printable\r
        \r
        \(String(repeating: "Welcome aboard. ", count: 20))Confirm: https://app.example/confirm?token=3D6f1a=\r
        2b3c4d5e6f.\r
        --inner\r
        Content-Type: text/html; charset=utf-8\r
        \r
        <p><a href="https://app.example/confirm?token=6f1a2b3c4d5e6f&amp;html=1">Confirm</a></p>\r
        --inner--\r
        --outer\r
        Content-Type: application/pdf; name="terms.pdf"\r
        Content-Disposition: attachment; filename="terms.pdf"\r
        Content-Transfer-Encoding: base64\r
        \r
        JVBERi0xLjQK\r
        --outer--\r
        """

    static func send(_ server: TestServer, _ message: String, to: String = "ann@example.org") async throws {
        let port = try CatchAllTests.smtpPort(server)
        let refused = try await SMTPDeliveryTests.send(port: port, from: "app@example.com", to: [to], message: message)
        #expect(refused == "{}", "\(refused)")
    }

    static func newest(_ client: TestHTTPClient, _ query: String = "") async throws -> [String: Any] {
        let listed = try await client.request("GET", "/api/operator/messages?limit=1" + query, headers: auth).json()
        return try #require((listed["messages"] as? [[String: Any]])?.first)
    }

    @Test(
        "GET /{id}: addresses, date, headers, bodies, attachments and links; /raw and /attachments/{n} the bytes",
        arguments: StorageBackend.allCases)
    func wholeMessage(_ backend: StorageBackend) async throws {
        let server = try await OperatorAPITests.start(backend)
        defer { Task { await server.stop() } }
        try await Self.send(server, Self.confirmation)
        let client = try server.client()
        let id = try #require(try await Self.newest(client)["id"] as? String)
        let detail = try await client.request("GET", "/api/operator/messages/\(id)", headers: Self.auth)
        #expect(detail.status == 200)
        let message = try detail.json()
        #expect(message["from"] as? String == "App é <app@example.com>")
        #expect(message["to"] as? [String] == ["Ann <ann@example.org>"])
        #expect(message["cc"] as? [String] == ["audit@example.org"])
        #expect(message["reply_to"] as? [String] == ["help@example.com"])
        #expect(message["envelope_from"] as? String == "app@example.com")
        #expect(message["envelope_to"] as? [String] == ["ann@example.org"])
        #expect(message["date"] as? String == "2025-06-15T15:06:40Z")
        #expect(message["message_id"] as? String == "confirm-1@example.com")
        #expect(message["is_read"] as? Bool == false)
        let headers = try #require(message["headers"] as? [[String: String]])
        #expect(headers.contains(["name": "From", "value": "App é <app@example.com>"]))
        #expect(headers.contains(["name": "Subject", "value": "Confirm your address"]))
        let text = try #require(message["text_body"] as? String)
        #expect(text.contains("Confirm: https://app.example/confirm?token=6f1a2b3c4d5e6f."))
        #expect((message["html_body"] as? String)?.contains("&amp;html=1") == true)
        #expect(
            message["links"] as? [String] == [
                "https://app.example/confirm?token=6f1a2b3c4d5e6f",
                "https://app.example/confirm?token=6f1a2b3c4d5e6f&html=1",
            ])
        let attachments = try #require(message["attachments"] as? [[String: Any]])
        #expect(attachments.count == 1)
        #expect(attachments.first?["index"] as? Int == 0)
        #expect(attachments.first?["content_type"] as? String == "application/pdf")
        #expect(attachments.first?["filename"] as? String == "terms.pdf")
        #expect(attachments.first?["size"] as? Int == 9)

        let raw = try await client.request("GET", "/api/operator/messages/\(id)/raw", headers: Self.auth)
        #expect(raw.status == 200 && raw.header("Content-Type") == "message/rfc822")
        #expect(raw.text.contains("Subject: Confirm your address\r\n") && raw.text.contains("JVBERi0xLjQK"))
        let pdf = try await client.request("GET", "/api/operator/messages/\(id)/attachments/0", headers: Self.auth)
        #expect(pdf.status == 200 && pdf.header("Content-Type") == "application/pdf")
        #expect(pdf.text == "%PDF-1.4\n")
        for path in ["attachments/1", "attachments/-1", "attachments/x"] {
            let missing = try await client.request("GET", "/api/operator/messages/\(id)/\(path)", headers: Self.auth)
            #expect(missing.status == 404 && missing.text == #"{"error":"not_found"}"#, "\(path)")
        }
    }

    @Test(
        "PUT {\"read\"} marks read and unread; DELETE removes one message; unknown ids 404; no token 401",
        arguments: StorageBackend.allCases)
    func markDeleteAndErrors(_ backend: StorageBackend) async throws {
        let server = try await OperatorAPITests.start(backend)
        defer { Task { await server.stop() } }
        try await Self.send(server, OperatorAPITests.mail(subject: "keep", to: "k@example.org"), to: "k@example.org")
        try await Self.send(server, OperatorAPITests.mail(subject: "drop", to: "d@example.org"), to: "d@example.org")
        let client = try server.client()
        let id = try #require(try await Self.newest(client)["id"] as? String)
        let path = "/api/operator/messages/\(id)"
        let read = try await client.json("PUT", path, ["read": true], headers: Self.auth)
        #expect(read.status == 200)
        #expect(try read.json()["is_read"] as? Bool == true)
        #expect(try await client.request("GET", path, headers: Self.auth).json()["is_read"] as? Bool == true)
        let unread = try await client.json("PUT", path, ["read": false], headers: Self.auth)
        #expect(unread.status == 200)
        #expect(try unread.json()["is_read"] as? Bool == false)
        for body in [["read": "yes"], ["unread": true]] as [[String: Any]] {
            let refused = try await client.json("PUT", path, body, headers: Self.auth)
            #expect(refused.status == 400 && refused.text == #"{"error":"invalid_request"}"#)
        }
        #expect(try await client.request("DELETE", path, headers: Self.auth).status == 204)
        #expect(try await Self.newest(client)["subject"] as? String == "keep")
        for (method, suffix) in [("GET", ""), ("GET", "/raw"), ("GET", "/attachments/0"), ("DELETE", "")] {
            let gone = try await client.request(method, path + suffix, headers: Self.auth)
            #expect(gone.status == 404 && gone.text == #"{"error":"not_found"}"#, "\(method) \(suffix)")
        }
        let putGone = try await client.json("PUT", path, ["read": true], headers: Self.auth)
        #expect(putGone.status == 404)
        for (method, suffix) in [("GET", ""), ("GET", "/raw"), ("GET", "/attachments/0"), ("DELETE", "")] {
            let refused = try await client.request(method, path + suffix)
            #expect(refused.status == 401 && refused.text == #"{"error":"unauthorized"}"#)
        }
    }

    @Test(
        "since a message id or a time on the list and /wait; start, limit and total; bad values 400",
        arguments: StorageBackend.allCases)
    func sinceStartLimit(_ backend: StorageBackend) async throws {
        let server = try await OperatorAPITests.start(backend)
        defer { Task { await server.stop() } }
        for subject in ["one", "two", "three"] {
            try await Self.send(
                server, OperatorAPITests.mail(subject: subject, to: "q@example.org"), to: "q@example.org")
        }
        let client = try server.client()
        let first = try #require(try await Self.newest(client, "&start=2")["id"] as? String)
        let after = try await client.request("GET", "/api/operator/messages?since=\(first)", headers: Self.auth).json()
        #expect((after["messages"] as? [[String: Any]])?.compactMap { $0["subject"] as? String } == ["three", "two"])
        #expect(after["total"] as? Int == 2 && after["start"] as? Int == 0)
        let next = try await client.request(
            "GET", "/api/operator/messages/wait?to=q%40example.org&since=\(first)&timeout=5", headers: Self.auth)
        #expect(try next.json()["subject"] as? String == "two")
        let newest = try #require(try await Self.newest(client)["id"] as? String)
        let waiting = Task {
            try await client.request(
                "GET", "/api/operator/messages/wait?since=\(newest)&timeout=20", headers: Self.auth)
        }
        let changes = server.runtime.mailChanges
        while changes.anyChange.waiting == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await Self.send(server, OperatorAPITests.mail(subject: "four", to: "q@example.org"), to: "q@example.org")
        #expect(try await waiting.value.json()["subject"] as? String == "four")
        let old = try await client.request(
            "GET", "/api/operator/messages?since=2000-01-01T00:00:00Z&limit=2&start=1", headers: Self.auth
        ).json()
        #expect((old["messages"] as? [[String: Any]])?.compactMap { $0["subject"] as? String } == ["three", "two"])
        #expect(old["total"] as? Int == 4 && old["start"] as? Int == 1)
        let future = try await client.request(
            "GET", "/api/operator/messages/wait?since=2999-01-01T00:00:00%2B01:00&timeout=0", headers: Self.auth)
        #expect(future.status == 204)
        // Each refusal names the parameter at fault and what it must be (issue 68), never echoing the value.
        for (query, parameter) in [
            ("?limit=0", "limit"), ("?limit=101", "limit"), ("?limit=x", "limit"), ("?start=-1", "start"),
            ("?start=1000001", "start"), ("?since=", "since"), ("?since=no-such-id", "since"), ("?since=now", "since"),
            ("?since=2025-13-01T00:00:00Z", "since"), ("/wait?since=no-such-id&timeout=0", "since"),
            ("/wait?timeout=121", "timeout"),
        ] {
            let refused = try await client.request("GET", "/api/operator/messages" + query, headers: Self.auth)
            #expect(refused.status == 400, "\(query)")
            let body = try refused.json()
            #expect(body["error"] as? String == "invalid_request" && body["parameter"] as? String == parameter, "\(query)")
            let message = try #require(body["message"] as? String)
            #expect(message.hasPrefix("\(parameter) must be"), "\(query): \(message)")
            #expect(!message.contains("no-such-id") && !message.contains("2025-13"), "\(query): \(message)")
        }
        let limit = try await client.request("GET", "/api/operator/messages?limit=0", headers: Self.auth)
        #expect(try limit.json()["message"] as? String == "limit must be a whole number from 1 to 100")
    }
}
