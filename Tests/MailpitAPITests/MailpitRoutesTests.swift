import Foundation
import MIME
import MailStore
import PosternTestSupport
import Testing

@testable import MailpitAPI

/// The routes' shapes as Mailpit's swagger.json and handlers give them, over the one store: tags are keywords, read
/// status is `$seen`, the 2023 client's form bodies are read as the JSON ones, and a body that is neither is refused.
@Suite("Mailpit API: routes over the one store", .serialized)
struct MailpitRoutesTests {
    static let multipart = """
        From: Ann <ann@example.com>\r
        To: Bo <bo@mail.localhost>\r
        Cc: cy@example.com\r
        Subject: Report\r
        Message-ID: <report-1@example.com>\r
        X-Tags: Quarterly, Tag 2\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="b"\r
        \r
        --b\r
        Content-Type: multipart/alternative; boundary="a"\r
        \r
        --a\r
        Content-Type: text/plain\r
        \r
        See the report.\r
        --a\r
        Content-Type: text/html\r
        \r
        <p onclick="x()">See <b>the report</b></p><script>alert(1)</script>\r
        --a--\r
        --b\r
        Content-Type: application/pdf; name="r.pdf"\r
        Content-Disposition: attachment; filename="r.pdf"\r
        Content-Transfer-Encoding: base64\r
        \r
        JVBERi0xLjQK\r
        --b--\r

        """

    @Test(
        "list, message, headers, raw, part and view answer Mailpit's shapes; opening marks read",
        arguments: StorageBackend.allCases)
    func shapes(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend)
        let id = try await harness.deliver(Self.multipart, to: "bo@mail.localhost")
        let list = try await harness.call("GET", "/api/v1/messages?limit=10")
        let object = try list.json()
        #expect(object["total"] as? Int == 1)
        #expect(object["unread"] as? Int == 1)
        #expect(object["messages_count"] as? Int == 1)
        #expect(object["start"] as? Int == 0)
        #expect(object["tags"] as? [String] == ["Quarterly", "Tag 2"])
        let summary = try #require((object["messages"] as? [[String: Any]])?.first)
        #expect(summary["ID"] as? String == id)
        #expect(summary["MessageID"] as? String == "report-1@example.com")
        #expect(summary["Read"] as? Bool == false)
        #expect((summary["From"] as? [String: Any])?["Address"] as? String == "ann@example.com")
        #expect((summary["To"] as? [[String: Any]])?.first?["Name"] as? String == "Bo")
        #expect(summary["Attachments"] as? Int == 1)
        #expect(summary["Tags"] as? [String] == ["Quarterly", "Tag 2"])

        let message = try await harness.call("GET", "/api/v1/message/latest")
        #expect(message.status == 200)
        let detail = try message.json()
        #expect(detail["ID"] as? String == id)
        #expect(detail["Text"] as? String == "See the report.")
        #expect(detail["Read"] as? Bool == true)
        let attachment = try #require((detail["Attachments"] as? [[String: Any]])?.first)
        #expect(attachment["FileName"] as? String == "r.pdf")
        let part = try await harness.call("GET", "/api/v1/message/\(id)/part/\(attachment["PartID"] as? String ?? "")")
        #expect(part.status == 200)
        #expect(part.header("Content-Type") == "application/pdf")
        #expect(part.text == "%PDF-1.4\n")
        #expect(try await harness.call("GET", "/api/v1/message/\(id)/part/9").status == 404)
        #expect(try await harness.call("GET", "/api/v1/messages").json()["unread"] as? Int == 0, "opened: read")

        let headers = try await harness.call("GET", "/api/v1/message/\(id)/headers").json()
        #expect(headers["Message-Id"] as? [String] == ["<report-1@example.com>"])
        #expect(headers["X-Tags"] as? [String] == ["Quarterly, Tag 2"])
        let raw = try await harness.call("GET", "/api/v1/message/\(id)/raw")
        #expect(raw.text == Self.multipart)
        #expect(raw.header("Content-Type") == "text/plain; charset=utf-8")
        let html = try await harness.call("GET", "/view/\(id).html")
        #expect(html.status == 200)
        #expect(html.text.contains("<b>the report</b>"))
        #expect(!html.text.contains("script") && !html.text.contains("onclick"))
        #expect(try await harness.call("GET", "/view/\(id).txt").text == "See the report.")
        #expect(try await harness.call("GET", "/view/\(id).pdf").status == 404)
        let missing = try await harness.call("GET", "/api/v1/message/no-such-id")
        #expect(missing.status == 404)
        #expect(missing.text == "404 page not found")
    }

    @Test(
        "a bare message's headers as Mailpit stores it; bcc: finds the envelope recipients no field names (issue 83)",
        arguments: StorageBackend.allCases)
    func bareMessage(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend)
        let bytes = Array("From: app@example.com\r\nTo: ann@mail.localhost\r\nSubject: bare\r\n\r\nhello\r\n".utf8)
        let copy = MailStore.Recipient(
            address: "catch-all@postern.invalid", quota: 100_000_000,
            envelopeTo: ["ann@mail.localhost", "Bob@mail.localhost"])
        let id = try await harness.store.deliver(
            NewMailMessage(try MIMEParser.parse(bytes), envelopeFrom: "app@example.com", raw: bytes), to: [copy],
            folder: .inbox, now: 1_800_000_000)[0]
        let headers = try await harness.call("GET", "/api/v1/message/\(id)/headers").json()
        #expect(headers["Message-Id"] as? [String] == ["<\(id)@mailpit>"])
        #expect(headers["Return-Path"] as? [String] == ["<app@example.com>"])
        #expect(headers["Bcc"] as? [String] == ["Bob@mail.localhost"])
        #expect(headers["From"] as? [String] == ["app@example.com"])
        for name in ["Date", "Delivered-To", "Content-Type"] {
            #expect(headers[name] as? [String] == [], "\(name): [] when the message has none")
        }
        let summary = try #require((try await harness.call("GET", "/api/v1/messages").json()["messages"]
            as? [[String: Any]])?.first)
        #expect(summary["MessageID"] as? String == "\(id)@mailpit")
        #expect((summary["Bcc"] as? [[String: Any]])?.compactMap { $0["Address"] as? String } == ["Bob@mail.localhost"])
        for (query, found) in [("bcc:bob", [id]), ("bcc:ann", []), ("to:ann", [id]), ("-bcc:bob", [])] {
            let answer = try await harness.call("GET", "/api/v1/search?query=\(query)")
            #expect(try MailpitHarness.ids(answer) == found, "\(query)")
        }
        // A header's Bcc is still found, and no unnamed recipient is made of a message delivered without an envelope.
        let named = try await harness.deliver(
            "From: a@example.com\r\nTo: c@example.com\r\nSubject: s\r\n\r\nx\r\n", to: "c@mail.localhost",
            bcc: [MailAddress(email: "hidden@example.com")])
        #expect(try MailpitHarness.ids(try await harness.call("GET", "/api/v1/search?query=bcc:hidden")) == [named])
        #expect(try await harness.call("GET", "/api/v1/message/\(named)/headers").json()["Bcc"] == nil)
    }

    @Test("the page at the base path points to the API, the clients' base URL, postern web link --all and the docs")
    func page() async throws {
        let harness = try MailpitHarness(.sqlite)
        for path in ["/", ""] {
            let page = try await harness.call("GET", path, token: nil)
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
            for text in [
                "href=\"/mailpit/api/v1/messages\"", "postern web link --all", "docs/mailpit.md", "href=\"/inbox\"",
                "API(\"https://any:TOKEN@your-host/mailpit\")",
            ] {
                #expect(page.text.contains(text), "\(path): \(text)")
            }
        }
    }

    @Test(
        "tags are the messages' keywords: set, rename and delete keep the other keywords",
        arguments: StorageBackend.allCases)
    func tags(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend)
        let id = try await harness.deliver(Self.multipart, to: "bo@mail.localhost")
        let record = try #require(try await harness.store.message(address: "bo@mail.localhost", id: id))
        #expect(record.summary.keywords == ["Quarterly", "Tag+2"], "X-Tags on arrival")
        _ = try await harness.store.update(
            address: "bo@mail.localhost", id: id, keywords: ["$flagged", "Quarterly"], folder: .inbox)
        #expect(
            try await harness.call(
                "PUT", "/api/v1/tags", json: ["IDs": [id], "Tags": ["Alpha Beta", "alpha beta", "x!"]]
            ).status == 200)
        var keywords = try await harness.store.message(address: "bo@mail.localhost", id: id)?.summary.keywords
        #expect(keywords == ["$flagged", "Alpha+Beta", "x"])
        #expect(try await harness.call("PUT", "/api/v1/tags/Alpha%20Beta", json: ["Name": "Gamma"]).status == 200)
        #expect(try await harness.call("GET", "/api/v1/tags").text == #"["Gamma","x"]"#)
        #expect(try await harness.call("DELETE", "/api/v1/tags/x").status == 200)
        keywords = try await harness.store.message(address: "bo@mail.localhost", id: id)?.summary.keywords
        #expect(keywords == ["$flagged", "Gamma"])
        #expect(try await harness.call("PUT", "/api/v1/tags/Gamma", json: ["Name": "!!"]).status == 400)
    }

    @Test(
        "read status and delete take JSON or the 2023 client's form; a body that is neither deletes nothing",
        arguments: StorageBackend.allCases)
    func bodies(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend)
        let first = try await harness.deliver(Self.multipart, to: "bo@mail.localhost")
        let second = try await harness.deliver(Self.multipart, to: "bo@mail.localhost")
        #expect(try await harness.call("PUT", "/api/v1/messages", form: "ids=\(first)&Read=True").status == 200)
        #expect(try await harness.call("GET", "/api/v1/messages").json()["unread"] as? Int == 1)
        #expect(try await harness.call("PUT", "/api/v1/messages", json: ["IDs": [first], "Read": false]).status == 200)
        #expect(try await harness.call("GET", "/api/v1/messages").json()["unread"] as? Int == 2)
        let both = try await harness.call("PUT", "/api/v1/messages", json: ["IDs": [first], "Search": "x"])
        #expect(both.status == 400)
        #expect(both.text == "You may specify either IDs or a search query, not both")
        #expect(try await harness.call("PUT", "/api/v1/messages").status == 400, "an empty body is Mailpit's EOF")
        for bad in [Array("{not json".utf8), Array("[1,2]".utf8), Array(#"{"IDs": "x"}"#.utf8)] {
            let refused = try await harness.call("DELETE", "/api/v1/messages", body: bad)
            #expect(refused.status == 400)
            #expect(refused.header("Content-Type")?.hasPrefix("text/plain") == true)
        }
        #expect(try MailpitHarness.ids(try await harness.call("GET", "/api/v1/messages")).count == 2, "nothing deleted")
        #expect(try await harness.call("DELETE", "/api/v1/messages", form: "ids=\(first)").status == 200)
        #expect(try MailpitHarness.ids(try await harness.call("GET", "/api/v1/messages")) == [second])
        #expect(try await harness.call("DELETE", "/api/v1/messages", json: [String: Any]()).status == 200)
        #expect(try MailpitHarness.ids(try await harness.call("GET", "/api/v1/messages")).isEmpty)
        let noQuery = try await harness.call("GET", "/api/v1/search?query=%20")
        #expect(noQuery.status == 400)
        #expect(noQuery.text == "Error: no search query")
    }

    @Test(
        "send stores through local delivery; the off features answer as Mailpit does without them",
        arguments: StorageBackend.allCases)
    func sendAndOff(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend)
        let sent = try await harness.call(
            "POST", "/api/v1/send",
            json: [
                "From": ["Email": "app@example.com", "Name": "App"], "To": [["Email": "dev@mail.localhost"]],
                "Subject": "Welcome", "Text": "Hi", "Tags": ["Signup"], "Headers": ["X-Run": "7"],
                "Attachments": [["Filename": "a.txt", "Content": "aGVsbG8="]],
            ])
        #expect(sent.status == 200, "\(sent.text)")
        let id = try #require(try sent.json()["ID"] as? String)
        let detail = try await harness.call("GET", "/api/v1/message/\(id)").json()
        #expect(detail["Subject"] as? String == "Welcome")
        #expect(detail["Tags"] as? [String] == ["Signup"])
        #expect(try await harness.call("GET", "/api/v1/message/\(id)/headers").json()["X-Run"] as? [String] == ["7"])
        let nowhere = try await harness.call(
            "POST", "/api/v1/send", json: ["From": ["Email": "a@example.com"], "To": [["Email": "x@example.org"]]])
        #expect(nowhere.status == 400)
        #expect(try nowhere.json()["Error"] as? String != nil)
        let restricted = try await harness.call(
            "POST", "/api/v1/send", json: ["From": ["Email": "a@example.com"], "Headers": ["Subject": "x"]])
        #expect(try restricted.json()["Error"] as? String == #"cannot overwrite header: "Subject""#)
        #expect(try await harness.call("POST", "/api/v1/send", json: ["To": []]).status == 400)

        let chaos = try await harness.call("GET", "/api/v1/chaos")
        #expect(chaos.status == 400)
        #expect(chaos.text == "Chaos is not enabled")
        #expect(try await harness.call("GET", "/api/v1/message/\(id)/sa-check").status == 404)
        #expect(try await harness.call("GET", "/api/v1/message/\(id)/html-check").status == 404)
        #expect(try await harness.call("GET", "/api/v1/message/\(id)/part/1/thumb").status == 400)
        let webui = try await harness.call("GET", "/api/v1/webui").json()
        #expect(webui["ChaosEnabled"] as? Bool == false)
        let info = try await harness.call("GET", "/api/v1/info").json()
        #expect(info["Messages"] as? Int == 1)
        #expect((info["Tags"] as? [String: Int]) == ["Signup": 1])
    }
}
