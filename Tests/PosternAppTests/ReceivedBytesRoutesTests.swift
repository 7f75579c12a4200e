import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// Every HTTP route that hands out bytes an outsider mailed here (issue 81 item 6), end to end on one server: one
/// message with an HTML, an SVG and a PNG attachment, sent over SMTP to a Mail.td account and to a mail.cx address,
/// then fetched through each door. Each answer must be inert on this origin: `attachment` (but a raster image where a
/// door shows parts inline, and a raw source shown as text), `nosniff`, and the sandbox policy that runs and loads
/// nothing. The other doors build their answers with the same ``ServerKit/ReceivedBytes`` (scripts/check-imports keeps
/// `Content-Disposition` there): the Pro sandbox's through Mail.td's download helper walked here, JMAP's blob download
/// in `JMAPBlobTests`, the web inbox's in `WebInboxPagesTests`.
@Suite("Received bytes: every door serves them inert", .timeLimit(.minutes(1)))
struct ReceivedBytesRoutesTests {
    static let auth = OperatorAPITests.auth
    /// Mailpit's clients send the operator's token as HTTP Basic's password (any user name).
    static let mailpitAuth = [("Authorization", "Basic YW55Om9wZXJhdG9yLXRva2VuLTAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2Nzg5")]

    static let message = """
        From: CEO <ceo01@agents.localhost>\r
        To: reader@mail.localhost, drop@cx.localhost\r
        Subject: Three attachments\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="b"\r
        \r
        --b\r
        Content-Type: text/plain\r
        \r
        See attached.\r
        --b\r
        Content-Type: text/html\r
        Content-Disposition: attachment; filename="page.html"\r
        \r
        <script>fetch('/mailpit/api/v1/messages')</script>\r
        --b\r
        Content-Type: image/svg+xml\r
        Content-Disposition: attachment; filename="logo.svg"\r
        \r
        <svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>\r
        --b\r
        Content-Type: image/png\r
        Content-Disposition: attachment; filename="dot.png"\r
        Content-Transfer-Encoding: base64\r
        \r
        iVBORw0KGgo=\r
        --b--\r
        """

    /// What a door answered, checked against the rule: 200, `nosniff`, the sandbox policy, and `inline` only when
    /// `inline` is what the rule allows there.
    static func expectInert(_ response: TestResponse, _ route: String, inline: Bool = false) {
        #expect(response.status == 200, "\(route): \(response.status)")
        #expect(response.header("X-Content-Type-Options") == "nosniff", "\(route): nosniff")
        #expect(response.header("Content-Security-Policy") == "default-src 'none'; sandbox", "\(route): the policy")
        let disposition = response.header("Content-Disposition") ?? ""
        #expect(
            disposition.hasPrefix(inline ? "inline" : "attachment"), "\(route): Content-Disposition \(disposition)")
    }

    @Test("raw sources and the HTML, SVG and PNG attachments of every door", arguments: [StorageBackend.sqlite])
    func everyDoor(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.recipients.acceptAny = true
            $0.mailbox.operatorToken = OperatorAPITests.token
            $0.mailCX.domains = ["cx.localhost"]
        }
        defer { Task { await server.stop() } }
        let client = try server.client()
        let account = try await client.createMailboxAccount("reader@mail.localhost")
        let accountID = try #require(account["id"] as? String)
        let bearer = [("Authorization", "Bearer " + (try #require(account["token"] as? String)))]
        let port = try CatchAllTests.smtpPort(server)
        let refused = try await SMTPDeliveryTests.send(
            port: port, from: "ceo01@agents.localhost", to: ["reader@mail.localhost", "drop@cx.localhost"],
            message: Self.message)
        #expect(refused == "{}", "\(refused)")
        let listed = try await client.request("GET", "/api/accounts/\(accountID)/messages", headers: bearer).json()
        let id = try #require((listed["messages"] as? [[String: Any]])?.first?["id"] as? String)
        let inbox = try await client.request("GET", "/mailcx/v1/inbox/drop@cx.localhost").json()
        let cxID = try #require((inbox["emails"] as? [[String: Any]])?.first?["id"] as? String)

        // Each door: its raw source, then its route for attachment n (0 HTML, 1 SVG, 2 PNG), and its credential.
        typealias Door = (name: String, raw: String, part: (Int) -> String, headers: [(String, String)])
        let doors: [Door] = [
            (
                "Mail.td", "/api/accounts/\(accountID)/messages/\(id)/source",
                { "/api/accounts/\(accountID)/messages/\(id)/attachments/\($0)" }, bearer
            ),
            (
                "mail.tm", "/mailtm/messages/\(id)/download",
                { "/mailtm/messages/\(id)/attachment/ATTACH00000\($0 + 1)" }, bearer
            ),
            ("mail.cx", "/mailcx/v1/email/\(cxID)/raw", { "/mailcx/v1/email/\(cxID)/attachments/\($0)" }, []),
            (
                "operator API", "/api/operator/messages/\(id)/raw",
                { "/api/operator/messages/\(id)/attachments/\($0)" }, Self.auth
            ),
            (
                "Mailpit ?dl=1", "/mailpit/api/v1/message/\(id)/raw?dl=1",
                { "/mailpit/api/v1/message/\(id)/part/\($0 + 1)" }, Self.mailpitAuth
            ),
        ]
        for door in doors {
            let raw = try await client.request("GET", door.raw, headers: door.headers)
            Self.expectInert(raw, "\(door.name) raw")
            #expect(raw.text.contains("Subject: Three attachments"), "\(door.name) raw: the message")
            // Mailpit shows a part inline where that is safe: the PNG; every other door saves each.
            let mailpit = door.name.hasPrefix("Mailpit")
            for (index, type) in ["text/html", "image/svg+xml", "image/png"].enumerated() {
                let part = try await client.request("GET", door.part(index), headers: door.headers)
                Self.expectInert(part, "\(door.name) \(type)", inline: mailpit && type == "image/png")
                #expect(part.header("Content-Type")?.hasPrefix(type) == true, "\(door.name) \(type): the type kept")
            }
        }
        // Mailpit's raw without `dl` and its text view are the source shown as text: inline, but text/plain.
        for route in ["/mailpit/api/v1/message/\(id)/raw", "/mailpit/view/\(id).txt"] {
            let shown = try await client.request("GET", route, headers: Self.mailpitAuth)
            Self.expectInert(shown, route, inline: true)
            #expect(shown.header("Content-Type") == "text/plain; charset=utf-8", "\(route): text")
        }
    }
}
