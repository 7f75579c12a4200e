import Foundation
import MIME
import MailStore
import PosternTestSupport
import Testing

@testable import MailpitAPI

/// Mailpit's search over a corpus of 40 messages on both backends, through `GET /api/v1/search`: one query per
/// operator, each with its negation, and quoted phrases, each compared with the ids the corpus's rules name.
@Suite("Mailpit API: search over a 40-message corpus", .serialized)
struct MailpitSearchCorpusTests {
    /// Noon of 2024-01-01 UTC; message i arrives i days later.
    static let firstArrival: Int64 = 1_704_067_200 + 12 * 3600

    /// Message `i` of the corpus: each field follows a rule of `i` that the expectations below restate.
    static func raw(_ i: Int) -> String {
        var head = [
            "From: Sender \(i % 5) <s\(i % 5)@from.example>",
            "To: r\(i % 3)@to.example",
            "Subject: " + (i % 2 == 0 ? "Your order shipped today" : "Shipped: your order today"),
            "Message-ID: <msg\(i)@corpus.example>",
            "Date: Mon, 01 Jan 2024 12:00:00 +0000",
            "MIME-Version: 1.0",
        ]
        if i % 8 == 0 { head.append("Cc: cc0@cc.example") }
        if i % 8 == 4 { head.append("Cc: cc1@cc.example") }
        if i % 7 == 0 { head.append("Reply-To: reply@rt.example") }
        if i % 5 == 0 { head.append("X-Tags: Urgent, Tag \(i % 2)") }
        var text = "Body of message \(i)."
        if i % 10 == 3 { text += " The needle is here." }
        if i % 10 == 1 { text += " " + String(repeating: "padding ", count: 700) }
        var parts: [String] = []
        if i % 8 == 0 {
            parts.append(
                "Content-Type: application/pdf; name=\"r.pdf\"\r\nContent-Disposition: attachment; filename=\"r.pdf\"\r\n"
                    + "Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK")
        }
        if i % 9 == 0 {
            parts.append(
                "Content-Type: image/png\r\nContent-ID: <logo@corpus>\r\nContent-Disposition: inline\r\n"
                    + "Content-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=")
        }
        if parts.isEmpty {
            head.append("Content-Type: text/plain; charset=utf-8")
            return head.joined(separator: "\r\n") + "\r\n\r\n" + text + "\r\n"
        }
        head.append("Content-Type: multipart/mixed; boundary=\"b\"")
        let body = (["Content-Type: text/plain; charset=utf-8\r\n\r\n" + text] + parts).map { "--b\r\n" + $0 + "\r\n" }
        return head.joined(separator: "\r\n") + "\r\n\r\n" + body.joined() + "--b--\r\n"
    }

    /// Each query and the corpus numbers it must find.
    static let queries: [(String, @Sendable (Int) -> Bool)] = [
        ("to:r1@to.example", { $0 % 3 == 1 }), ("-to:r1@to.example", { $0 % 3 != 1 }),
        (#"from:"Sender 2""#, { $0 % 5 == 2 }), ("-from:s2@from.example", { $0 % 5 != 2 }),
        ("cc:cc1@cc.example", { $0 % 8 == 4 }), ("!cc:cc1@cc.example", { $0 % 8 != 4 }),
        ("bcc:hidden@bcc.example", { $0 % 6 == 0 }), ("-bcc:hidden", { $0 % 6 != 0 }),
        ("reply-to:reply@rt.example", { $0 % 7 == 0 }), ("-reply-to:reply@rt.example", { $0 % 7 != 0 }),
        ("addressed:reply@rt.example", { $0 % 7 == 0 }), ("addressed:s3@from.example", { $0 % 5 == 3 }),
        ("-addressed:s3@from.example", { $0 % 5 != 3 }),
        (#"subject:"your order shipped""#, { $0 % 2 == 0 }), (#"-subject:"your order shipped""#, { $0 % 2 == 1 }),
        (#""order shipped""#, { $0 % 2 == 0 }), (#"-"order shipped""#, { $0 % 2 == 1 }),
        ("message-id:msg7@corpus.example", { $0 == 7 }), ("-message-id:<msg7@corpus.example>", { $0 != 7 }),
        ("tag:urgent", { $0 % 5 == 0 }), (#"tag:"Tag 1""#, { $0 % 10 == 5 }), ("-tag:Urgent", { $0 % 5 != 0 }),
        ("is:read", { $0 % 3 == 0 }), ("-is:read", { $0 % 3 != 0 }), ("is:unread", { $0 % 3 != 0 }),
        ("-is:unread", { $0 % 3 == 0 }),
        ("is:tagged", { $0 % 5 == 0 }), ("-is:tagged", { $0 % 5 != 0 }),
        ("has:attachment", { $0 % 8 == 0 }), ("-has:attachment", { $0 % 8 != 0 }),
        ("has:inline", { $0 % 9 == 0 }), ("-has:inline", { $0 % 9 != 0 }),
        ("after:2024-01-31", { $0 >= 30 }), ("-after:2024-01-31", { $0 < 30 }),
        ("before:2024-01-10", { $0 <= 8 }), ("-before:2024-01-10", { $0 > 8 }),
        ("after:2024-01-05T12:00:00Z before:2024-01-07T12:00:00Z", { (4...6).contains($0) }),
        ("larger:4k", { $0 % 10 == 1 }), ("-larger:4k", { $0 % 10 != 1 }), ("smaller:4kb", { $0 % 10 != 1 }),
        ("needle", { $0 % 10 == 3 }), ("-needle", { $0 % 10 != 3 }),
        ("from:s1@from.example is:unread -has:attachment", { $0 % 5 == 1 && $0 % 3 != 0 && $0 % 8 != 0 }),
    ]

    @Test(
        "each operator, its negation and phrases find exactly the expected messages", arguments: StorageBackend.allCases
    )
    func corpus(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend)
        var ids: [String] = []
        for i in 0..<40 {
            let bcc = i % 6 == 0 ? [MailAddress(email: "hidden@bcc.example")] : []
            ids.append(
                try await harness.deliver(
                    Self.raw(i), to: "box\(i % 4)@mail.localhost", now: Self.firstArrival + Int64(i) * 86_400, bcc: bcc)
            )
        }
        let read = (0..<40).filter { $0 % 3 == 0 }.map { ids[$0] }
        #expect(try await harness.call("PUT", "/api/v1/messages", json: ["IDs": read, "Read": true]).status == 200)
        for (query, expected) in Self.queries {
            let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
            let response = try await harness.call("GET", "/api/v1/search?limit=100&query=" + encoded)
            #expect(response.status == 200, "\(query): \(response.text)")
            let found = Set(try MailpitHarness.ids(response))
            let wanted = Set((0..<40).filter(expected).map { ids[$0] })
            #expect(found == wanted, "\(query): \(found.count) found, \(wanted.count) expected")
            #expect(try response.json()["messages_count"] as? Int == wanted.count, "\(query): messages_count")
        }
        // Search delete removes what matches and nothing else.
        #expect(try await harness.call("DELETE", "/api/v1/search?query=tag:urgent").status == 200)
        let left = Set(try MailpitHarness.ids(try await harness.call("GET", "/api/v1/messages?limit=100")))
        let untagged: Set<String> = Set((0..<40).filter { $0 % 5 != 0 }.map { ids[$0] })
        #expect(left == untagged)
    }
}
