import Foundation
import Logging
import MailDelivery
import Testing

@testable import PosternApp

/// `postern mail list` and `postern mail show` against a running server's data directory: a quick look at what SMTP
/// stored, from a terminal.
@Suite("postern mail list and show")
struct MailListCommandTests {
    @Test("list: newest first, everything or one address or the catch-all; show: headers and text, or the raw bytes")
    func listAndShow() async throws {
        let server = try await TestServer.start { $0.recipients.acceptAny = true }
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
        #expect(all.first?.contains("  \(RecipientPolicy.catchAllAddress)  from app@example.com  to who@example.org  Elsewhere") == true, "\(all)")
        #expect(all.last?.contains("  alice@agents.localhost  from app@example.com  to alice+news@agents.localhost  For Alice") == true, "\(all)")
        let catchAll = try await Operations.mailList(
            configuration: configuration, address: Operations.catchAllAddress, logger: logger)
        #expect(catchAll.count == 1 && catchAll.first?.hasSuffix("Elsewhere") == true, "\(catchAll)")
        let alice = try await Operations.mailList(
            configuration: configuration, address: "Alice@agents.localhost", logger: logger)
        #expect(alice.count == 1 && alice.first?.hasSuffix("For Alice") == true, "\(alice)")

        let id = try #require(alice.first?.split(separator: " ").first.map(String.init))
        let shown = try await Operations.mailShow(configuration: configuration, id: id, logger: logger)
        for line in [
            "Id: \(id)", "Stored-Under: alice@agents.localhost", "Envelope-From: app@example.com",
            "Envelope-To: alice+news@agents.localhost", "From: App <app@example.com>", "To: alice@agents.localhost",
            "Subject: For Alice", "\n\nHi Alice",
        ] {
            #expect(shown.contains(line), "\(line) in \(shown)")
        }
        let raw = try await Operations.mailShow(configuration: configuration, id: id, raw: true, logger: logger)
        // As received: the server's Received field on top of the bytes the client sent.
        #expect(raw.hasPrefix("Received: from ") && raw.hasSuffix(first), "\(raw)")
        await #expect(throws: ConfigurationError.self) {
            try await Operations.mailShow(configuration: configuration, id: "no-such-id", logger: logger)
        }
    }
}
