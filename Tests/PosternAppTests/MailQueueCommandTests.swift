import Foundation
import Logging
import MailDelivery
import OutboundQueue
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern mail queue` against a running server's database: the list, a retry of one message and of all, a delete,
/// and an id no waiting message has refused by name; `postern mail tls-reset`.
@Suite("postern mail queue and tls-reset")
struct MailQueueCommandTests {
    @Test(
        "lists waiting messages with their recipients, makes them due now, deletes one, refuses an unknown id",
        arguments: StorageBackend.allCases)
    func queueCommand(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let configuration = server.runtime.configuration
        let logger = Logger(label: "mail-queue-test")
        #expect(
            try await Operations.queue(configuration: configuration, .list, logger: logger) == [
                "The outbound queue is empty."
            ])
        let queue = OutboundQueue(database: server.runtime.database)
        let now = Operations.unixNow()
        _ = try await queue.record(
            NewSubmission(
                id: "Squeued1", accountID: "acct", sender: "a@agents.localhost", emailID: "M1", threadID: "T1",
                sendAt: now,
                recipients: ["x@one.example", "y@two.example"].map {
                    SubmissionRecipient(address: $0, status: .queued)
                }, content: Array("Subject: hi\r\n\r\nhi\r\n".utf8)),
            limits: [], now: now)
        let listed = try await Operations.queue(configuration: configuration, .list, logger: logger)
        #expect(listed.count == 3)
        #expect(listed[0].hasPrefix("Squeued1  from a@agents.localhost  19 bytes  queued "))
        #expect(listed[1].hasPrefix("    x@one.example  attempts 0  next "))
        #expect(listed[2].hasSuffix(OutboundQueue.queuedReply))
        #expect(
            try await Operations.queue(configuration: configuration, .retry("Squeued1"), logger: logger) == [
                "Squeued1: 2 recipients due now"
            ])
        #expect(
            try await Operations.queue(configuration: configuration, .retryAll, logger: logger) == [
                "2 recipients due now"
            ])
        let unknown = await #expect(throws: ConfigurationError.self) {
            _ = try await Operations.queue(configuration: configuration, .delete(.message("Snope")), logger: logger)
        }
        #expect(unknown?.key == "--delete" && unknown?.message.contains("Snope") == true)
        // A selection says how many recipients it removed, none included.
        #expect(
            try await Operations.queue(
                configuration: configuration, .delete(.holder(.owner("o-none"))), logger: logger)
                == ["0 recipients deleted"])
        #expect(
            try await Operations.queue(configuration: configuration, .delete(.domain("two.example")), logger: logger)
                == ["1 recipients deleted"])
        #expect(
            try await Operations.queue(configuration: configuration, .delete(.message("Squeued1")), logger: logger) == [
                "Squeued1: 1 recipients deleted"
            ])
        #expect(try await queue.list().isEmpty)
        #expect(try await Operations.outbox(configuration: configuration, logger: logger).isEmpty)
    }

    @Test(
        "postern mail tls-reset forgets a domain that took mail over TLS (any case); one never seen says so",
        arguments: StorageBackend.allCases)
    func tlsReset(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let configuration = server.runtime.configuration
        let logger = Logger(label: "mail-tls-reset-test")
        let queue = OutboundQueue(database: server.runtime.database)
        try await queue.recordDeliveryOverTLS("secure.example", now: Operations.unixNow())
        #expect(
            try await Operations.tlsReset(configuration: configuration, domain: "Secure.Example", logger: logger)
                == "secure.example: forgotten; a failed STARTTLS may be retried in the clear")
        #expect(try await queue.wasDeliveredOverTLS("secure.example") == false)
        #expect(
            try await Operations.tlsReset(configuration: configuration, domain: "secure.example", logger: logger)
                == "secure.example: no delivery over TLS was on record")
    }
}
