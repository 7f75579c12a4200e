import Foundation
import Logging
import MailDelivery
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern web link` names the running server and the mailbox that holds the mail: the data directory's record of
/// `serve`, a subaddress's mailbox, the catch-all's; `--all` opens every mailbox read-only.
@Suite("postern web link: the running server, the mailbox that holds the mail, all mail")
struct WebLinkResolutionTests {
    let logger = Logger(label: "web-link-resolution-test")

    /// Delivers a short message to `recipients` as `postern mail deliver` does.
    private func deliver(_ configuration: PosternConfiguration, to recipients: [String], subject: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("postern-link-\(UUID()).eml")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("From: ci@example.com\r\nTo: \(recipients[0])\r\nSubject: \(subject)\r\n\r\nHi.\r\n".utf8).write(to: file)
        _ = try await Operations.deliverMail(
            configuration: configuration, recipients: recipients, file: file.path, logger: logger)
    }

    private func resolve(_ configuration: PosternConfiguration, _ address: String) async throws -> String? {
        let database = try Operations.migratedDatabase(configuration, logger: logger)
        return try await Operations.mailbox(
            holding: address, mail: Surfaces.localMail(
                configuration, database: database,
                domains: Surfaces.customDomains(database: database, signingKeys: nil), clock: { 0 }))
    }

    @Test(
        "the link names the server running on the data directory, not the configured port; a dead server's record is not believed",
        arguments: StorageBackend.allCases)
    func runningServersURL(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        var configuration = server.runtime.configuration
        configuration.listener.port = 8080
        configuration.identity.publicURL = nil
        _ = try await server.client().createMailboxAccount("linked@mail.localhost")
        let directory = server.runtime.absoluteDataDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { unlink(RunningServerRecord.path(dataDirectory: directory)) }

        let before = try await Operations.webInboxLink(
            configuration: configuration, address: "linked@mail.localhost", logger: logger)
        #expect(before.hasPrefix("http://127.0.0.1:8080/inbox/link/"), "\(before)")

        try RunningServerRecord.write(server.runtime.boundAddressesLine, dataDirectory: directory)
        let running = try await Operations.webInboxLink(
            configuration: configuration, address: "linked@mail.localhost", logger: logger)
        #expect(running.hasPrefix(server.runtime.identity.baseURL + "/inbox/link/"), "\(running)")
        #expect(!running.contains(":8080/"))

        let dead = #"{"http":"http://127.0.0.1:1","public_url":"http://127.0.0.1:1","pid":2147483646}"#
        try RunningServerRecord.write(Array(dead.utf8), dataDirectory: directory)
        let stale = try await Operations.webInboxLink(
            configuration: configuration, address: "linked@mail.localhost", logger: logger)
        #expect(stale.hasPrefix("http://127.0.0.1:8080/inbox/link/"), "\(stale)")
    }

    @Test("a ports file's line reads as the running server: public_url first, then http, and its data directory")
    func portsFileLine() {
        let line = #"{"http":"http://127.0.0.1:41733","smtp":null,"sandbox":null,"data_dir":"/tmp/d","public_url":"http://x.test/","pid":7}"#
        #expect(
            RunningServerRecord.read(Array(line.utf8))
                == RunningServerRecord.Contents(baseURL: "http://x.test", dataDirectory: "/tmp/d", pid: 7))
        let older = #"{"http":"http://127.0.0.1:41733","data_dir":"/tmp/d"}"#
        #expect(RunningServerRecord.read(Array(older.utf8))?.baseURL == "http://127.0.0.1:41733")
        #expect(RunningServerRecord.read(Array("not json".utf8)) == nil)
        #expect(RunningServerRecord.read(Array(#"{"smtp":"127.0.0.1:1"}"#.utf8)) == nil)
    }

    @Test(
        "a +tag address opens its mailbox; catch-all, and an address the catch-all took, open the catch-all's",
        arguments: StorageBackend.allCases)
    func resolution(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.recipients.acceptAny = true }
        defer { Task { await server.stop() } }
        _ = try await server.client().createMailboxAccount("tagged@mail.localhost")
        let configuration = server.runtime.configuration
        try await deliver(configuration, to: ["tagged+ci@mail.localhost"], subject: "Tagged")
        try await deliver(configuration, to: ["stray@elsewhere.test"], subject: "Caught")
        let catchAll = RecipientPolicy.catchAllAddress

        #expect(try await resolve(configuration, "Tagged+CI@mail.localhost") == "tagged@mail.localhost")
        #expect(try await resolve(configuration, "catch-all") == catchAll)
        #expect(try await resolve(configuration, catchAll) == catchAll)
        #expect(try await resolve(configuration, "stray@elsewhere.test") == catchAll)

        // With the catch-all turned off since, the mail it took is still found where it is; other addresses are not.
        var off = configuration
        off.recipients.acceptAny = false
        #expect(try await resolve(off, "stray@elsewhere.test") == catchAll)
        #expect(try await resolve(off, "never@elsewhere.test") == nil)
        await #expect(throws: WebInboxLinkError.notLocal) {
            _ = try await Operations.webInboxLink(configuration: off, address: "never@elsewhere.test", logger: logger)
        }

        // The catch-all's link opens a session that reads its mailbox.
        let link = try await Operations.webInboxLink(configuration: configuration, address: "catch-all", logger: logger)
        let cookie = try await WebLinkSession.open(link, server)
        let list = try await server.client().request(
            "GET", "/inbox/m/catch-all%40postern.invalid", headers: [("Cookie", cookie)])
        #expect(list.status == 200)
        #expect(list.text.contains("Caught"))
    }

    @Test(
        "an address only part of one the catch-all took (bob in jimbob) is not found in the catch-all's mail",
        arguments: StorageBackend.allCases)
    func catchAllRecipientWhole(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.recipients.acceptAny = true }
        defer { Task { await server.stop() } }
        var configuration = server.runtime.configuration
        try await deliver(configuration, to: ["jimbob@elsewhere.test"], subject: "To Jim")
        configuration.recipients.acceptAny = false
        #expect(try await resolve(configuration, "jimbob@elsewhere.test") == RecipientPolicy.catchAllAddress)
        #expect(try await resolve(configuration, "bob@elsewhere.test") == nil)
        #expect(try await resolve(configuration, "jimbob@elsewhere.tes") == nil)
    }

    @Test(
        "--all: every mailbox that holds mail, its live list and message page, and nothing that changes a message",
        arguments: StorageBackend.allCases)
    func allMail(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.recipients.acceptAny = true }
        defer { Task { await server.stop() } }
        let client = try server.client()
        _ = try await client.createMailboxAccount("first@mail.localhost")
        let configuration = server.runtime.configuration
        try await deliver(configuration, to: ["first@mail.localhost"], subject: "To the first")
        try await deliver(configuration, to: ["stray@elsewhere.test"], subject: "To the catch-all")

        let link = try await Operations.webInboxAllMailLink(configuration: configuration, logger: logger)
        let cookie = try await WebLinkSession.open(link, server)
        let home = try await client.request("GET", "/inbox", headers: [("Cookie", cookie)])
        #expect(home.status == 200)
        #expect(home.text.contains("All mail (read-only)"))
        // Addresses on the pages may break after "@" and ".": read them without their <wbr>s.
        let shown = home.text.replacingOccurrences(of: "<wbr>", with: "")
        #expect(shown.contains("first@mail.localhost") && shown.contains(RecipientPolicy.catchAllAddress))

        let list = try await client.request("GET", "/inbox/m/first%40mail.localhost", headers: [("Cookie", cookie)])
        #expect(list.status == 200)
        #expect(list.text.contains("To the first") && list.text.contains("/inbox/assets/live.js"))
        #expect(!list.text.contains("id=\"compose\""))
        let stream = try server.client()
        stream.sendRaw(
            Array(
                ("GET /inbox/m/first%40mail.localhost/events?state=0 HTTP/1.1\r\nHost: localhost\r\n"
                    + "Cookie: \(cookie)\r\n\r\n").utf8))
        let head = try await stream.readResponse()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(try await stream.readUntil("\n\nevent: change\n").contains("event: change"))

        let id = try #require(WebLinkSession.firstMessageID(list.text))
        let page = try await client.request("GET", "/inbox/m/first%40mail.localhost/\(id)", headers: [("Cookie", cookie)])
        #expect(page.status == 200)
        #expect(page.text.contains("To the first"))
        #expect(!page.text.contains("id=\"delete-form\"") && !page.text.contains("id=\"mark-form\""))
        #expect(!page.text.contains("id=\"reply\""))

        let csrf = try #require(WebLinkSession.csrf(page.text))
        let delete = try await WebLinkSession.post(
            client, "/inbox/m/first%40mail.localhost/\(id)/delete", "csrf_token=\(csrf)", cookie: cookie)
        #expect(delete.status == 403)
        let again = try await client.request("GET", "/inbox/m/first%40mail.localhost", headers: [("Cookie", cookie)])
        #expect(again.text.contains("To the first"), "the message is still there")
        #expect(again.text.contains("class=\"message unread\""), "viewing it left it unread")
    }
}
