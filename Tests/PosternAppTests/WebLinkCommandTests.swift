import Foundation
import Logging
import MailboxAccounts
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern web link` against a running server: the web inbox is composed into the server, and the link opens the
/// mailbox it names once.
@Suite("postern web link")
struct WebLinkCommandTests {
    @Test(
        "a link opens its mailbox in the running server's web inbox once; an address with no mailbox gets no link",
        arguments: StorageBackend.allCases)
    func link(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        _ = try await client.createMailboxAccount("tests@mail.localhost")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("postern-web-link-\(UUID()).eml")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("From: ci@example.com\r\nTo: tests@mail.localhost\r\nSubject: What the test got\r\n\r\nHi.\r\n".utf8)
            .write(to: file)
        let logger = Logger(label: "web-link-test")
        let configuration = server.runtime.configuration
        _ = try await Operations.deliverMail(
            configuration: configuration, recipients: ["tests@mail.localhost"], file: file.path, logger: logger)

        let link = try await Operations.webInboxLink(
            configuration: configuration, address: "Tests@mail.localhost", logger: logger)
        let path = try #require(link.range(of: "/inbox/link/")).lowerBound
        let linkPath = String(link[path...])
        let token = String(linkPath.dropFirst("/inbox/link/".count))

        let page = try await client.request("GET", linkPath)
        #expect(page.status == 200)
        #expect(page.header("Cache-Control") == "no-store")
        let preCookie = try #require(page.header("Set-Cookie")?.split(separator: ";").first.map { String($0) })
        let csrfStart = try #require(page.text.range(of: "name=\"csrf_token\" value=\"")).upperBound
        let csrf = String(page.text[csrfStart...].prefix { $0 != "\"" })
        let form = "csrf_token=\(csrf)&token=\(token)"
        let used = try await client.request(
            "POST", "/inbox/link",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", preCookie)],
            body: Array(form.utf8))
        #expect(used.status == 303)
        let session = try #require(
            used.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("postern_inbox=") }?.1)
        #expect(session.contains("HttpOnly") && session.contains("SameSite=Strict"))
        let cookie = String(session.split(separator: ";")[0])
        let list = try await client.request("GET", "/inbox/m/tests%40mail.localhost", headers: [("Cookie", cookie)])
        #expect(list.status == 200)
        #expect(list.text.contains("What the test got"))
        let again = try await client.request(
            "POST", "/inbox/link",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", preCookie)],
            body: Array(form.utf8))
        #expect(again.status == 404)

        await #expect(throws: WebInboxLinkError.notLocal) {
            _ = try await Operations.webInboxLink(
                configuration: configuration, address: "nobody@mail.localhost", logger: logger)
        }
    }
}
