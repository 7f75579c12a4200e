import Foundation
import Logging
import MailboxAccounts
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern mail deliver` and `postern mail outbox` against a running server's data directory.
@Suite("postern mail deliver and outbox")
struct MailDeliverCommandTests {
    @Test(
        "a file delivered to a mailbox account is read through Mail.td's endpoints; other addresses are refused by name",
        arguments: StorageBackend.allCases)
    func deliverFile(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let account = try await client.createMailboxAccount("files@mail.localhost")
        let token = try #require(account["token"] as? String)
        let accountID = try #require(account["id"] as? String)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("postern-deliver-\(UUID()).eml")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("From: a@example.com\r\nTo: files@mail.localhost\r\nSubject: From a file\r\n\r\nHello.\r\n".utf8).write(to: file)
        let logger = Logger(label: "mail-deliver-test")
        let configuration = server.runtime.configuration
        let messageID = try await Operations.deliverMail(
            configuration: configuration, recipients: ["Files@mail.localhost"], file: file.path, logger: logger)

        let listed = try await client.request(
            "GET", "/api/accounts/\(accountID)/messages", headers: [("Authorization", "Bearer \(token)")]).json()
        let messages = try #require(listed["messages"] as? [[String: Any]])
        #expect(messages.count == 1 && messages.first?["id"] as? String == messageID)
        #expect(messages.first?["subject"] as? String == "From a file")

        for (address, words) in [("nobody@mail.localhost", "no such mailbox"), ("x@example.com", "not a local domain")] {
            let error = await #expect(throws: ConfigurationError.self) {
                _ = try await Operations.deliverMail(
                    configuration: configuration, recipients: [address], file: file.path, logger: logger)
            }
            #expect(error?.message.contains(address) == true && error?.message.contains(words) == true)
        }
        await #expect(throws: ConfigurationError.self) {
            _ = try await Operations.deliverMail(
                configuration: configuration, recipients: ["files@mail.localhost"], file: file.path + ".missing",
                logger: logger)
        }
        #expect(try await Operations.outbox(configuration: configuration, logger: logger).isEmpty)
    }
}
