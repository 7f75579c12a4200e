import Foundation
import Logging
import MIME
import MailDelivery
import MailStore
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern mail list` and `postern mail show` against a running server's data directory: a quick look at what SMTP
/// stored, from a terminal.
@Suite("postern mail list and show")
struct MailListCommandTests {
    @Test(
        "list: newest first, everything or one address or the catch-all; show: headers and text, or the raw bytes",
        arguments: StorageBackend.allCases)
    func listAndShow(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.recipients.acceptAny = true }
        defer { Task { await server.stop() } }
        try await CatchAllTests.addAgent("alice", to: server)
        let port = try CatchAllTests.smtpPort(server)
        let first = "From: App <app@example.com>\r\nTo: alice@agents.localhost\r\nSubject: For Alice\r\n\r\nHi Alice\r\n"
        #expect(
            try await SMTPDeliveryTests.send(
                port: port, from: "app@example.com", to: ["alice+news@agents.localhost"], message: first) == "{}")
        let second = "From: app@example.com\r\nTo: who@example.org\r\nSubject: Elsewhere\r\n\r\nNot here\r\n"
        #expect(
            try await SMTPDeliveryTests.send(port: port, from: "app@example.com", to: ["who@example.org"], message: second)
                == "{}")
        let configuration = server.runtime.configuration
        let logger = Logger(label: "mail-list-test")

        let all = try await Operations.mailList(configuration: configuration, address: nil, logger: logger)
        #expect(all.count == 2)
        #expect(all.first?.contains("  \(RecipientPolicy.catchAllAddress)  inbox  from app@example.com  to who@example.org  Elsewhere") == true, "\(all)")
        #expect(all.last?.contains("  alice@agents.localhost  inbox  from app@example.com  to alice+news@agents.localhost  For Alice") == true, "\(all)")
        let catchAll = try await Operations.mailList(
            configuration: configuration, address: Operations.catchAllAddress, logger: logger)
        #expect(catchAll.count == 1 && catchAll.first?.hasSuffix("Elsewhere") == true, "\(catchAll)")
        let alice = try await Operations.mailList(
            configuration: configuration, address: "Alice@agents.localhost", logger: logger)
        #expect(alice.count == 1 && alice.first?.hasSuffix("For Alice") == true, "\(alice)")

        let id = try #require(alice.first?.split(separator: " ").first.map { String($0) })
        let shown = try await Operations.mailShow(configuration: configuration, id: id, logger: logger)
            .joined(separator: "\n")
        for line in [
            "Id: \(id)", "Stored-Under: alice@agents.localhost", "Envelope-From: app@example.com",
            "Envelope-To: alice+news@agents.localhost", "From: App <app@example.com>", "To: alice@agents.localhost",
            "Subject: For Alice", "\n\nHi Alice",
        ] {
            #expect(shown.contains(line), "\(line) in \(shown)")
        }
        let raw = String(
            decoding: try await Operations.mailRaw(configuration: configuration, id: id, logger: logger), as: UTF8.self)
        // As received: the server's Received field on top of the bytes the client sent.
        #expect(raw.hasPrefix("Received: from ") && raw.hasSuffix(first), "\(raw)")

        // What a mailbox wrote has no SMTP envelope: its folder and its header's recipients show instead of "to -".
        let draft = Array("From: alice@agents.localhost\r\nTo: bob@example.org\r\nCc: c@example.net\r\nSubject: Mine\r\n\r\nx\r\n".utf8)
        _ = try await MailStore(database: server.runtime.database).save(
            NewMailMessage(try MIMEParser.parse(draft), envelopeFrom: "alice@agents.localhost", raw: draft),
            address: "alice@agents.localhost", quota: 1 << 20, folder: .drafts, keywords: ["$draft"], now: 1_790_000_000)
        let mine = try await Operations.mailList(
            configuration: configuration, address: "alice@agents.localhost", logger: logger)
        #expect(mine.contains { $0.contains("  alice@agents.localhost  drafts  from alice@agents.localhost  to bob@example.org, c@example.net  Mine") }, "\(mine)")
        await #expect(throws: ConfigurationError.self) {
            try await Operations.mailShow(configuration: configuration, id: "no-such-id", logger: logger)
        }
    }
}
