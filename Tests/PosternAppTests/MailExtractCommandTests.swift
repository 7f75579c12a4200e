import Logging
import MailStore
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern mail extract --backfill` (issue 85): a message stored before Postern found codes and links at delivery
/// gets them, in batches, with a count after each; a second run has nothing to do.
@Suite("postern mail extract --backfill")
struct MailExtractCommandTests {
    @Test("fills the messages stored without codes and links, batch by batch; a second run fills none",
        arguments: StorageBackend.allCases)
    func backfill(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.recipients.acceptAny = true }
        defer { Task { await server.stop() } }
        let port = try CatchAllTests.smtpPort(server)
        for recipient in ["one@example.org", "two@example.org", "three@example.org"] {
            #expect(
                try await SMTPDeliveryTests.send(
                    port: port, from: "no-reply@acme.example", to: [recipient],
                    message: VerificationMail.raw(to: recipient)) == "{}")
        }
        let store = MailStore(database: server.runtime.database)
        let ids = try await store.list(MailSelection(.everyAddress)).map(\.id)
        #expect(ids.count == 3)
        // As a release before migration 0068 left them.
        _ = try await server.runtime.database.write { try $0.run("DELETE FROM mail_extractions", []) }
        #expect(try await store.extractions(in: .everyAddress, ids: ids).isEmpty)

        let configuration = server.runtime.configuration
        let logger = Logger(label: "mail-extract-test")
        var lines: [String] = []
        let closing = try await Operations.mailExtractBackfill(
            configuration: configuration, batch: 2, logger: logger, progress: { lines.append($0) })
        #expect(lines == ["filled 2, 1 left", "filled 1, 0 left"])
        #expect(closing == "3 messages filled; every stored message has its codes and links")
        let filled = try await store.extractions(in: .everyAddress, ids: ids)
        #expect(filled.count == 3 && filled.values.allSatisfy { $0.codes.first?.value == VerificationMail.code })

        lines = []
        let again = try await Operations.mailExtractBackfill(
            configuration: configuration, logger: logger, progress: { lines.append($0) })
        #expect(lines.isEmpty && again == "0 messages filled; every stored message has its codes and links")
    }
}
