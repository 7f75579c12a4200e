import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern mail code --address A [--wait D]` (issue 85): the best code of the newest message at A that has one,
/// waiting on the store's change stream; a reason when there is none.
@Suite("postern mail code", .timeLimit(.minutes(1)))
struct MailCodeCommandTests {
    @Test(
        "says why when there is no code; waits for a delivery and prints its code", arguments: StorageBackend.allCases)
    func codeOrWhy(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.recipients.acceptAny = true }
        defer { Task { await server.stop() } }
        try await CatchAllTests.addAgent("alice", to: server)
        let port = try CatchAllTests.smtpPort(server)
        let configuration = server.runtime.configuration
        let logger = Logger(label: "mail-code-test")
        let address = "alice@agents.localhost"
        func send(_ message: String) async throws {
            #expect(
                try await SMTPDeliveryTests.send(
                    port: port, from: "no-reply@acme.example", to: [address], message: message) == "{}")
        }

        #expect(
            try await Operations.mailCode(configuration: configuration, address: address, logger: logger)
                == .none("\(address): no message in its inbox"))
        try await send(VerificationMail.newsletter(to: address))
        #expect(
            try await Operations.mailCode(configuration: configuration, address: "Alice@agents.localhost", logger: logger)
                == .none("\(address): none of its 1 messages has a one-time code"))

        let waiting = Task {
            try await Operations.mailCode(
                configuration: configuration, address: address, wait: .seconds(20), logger: logger)
        }
        try await Task.sleep(for: .milliseconds(300))
        let sent = ContinuousClock.now
        try await send(VerificationMail.raw(to: address))
        let answer = try await waiting.value
        #expect(ContinuousClock.now - sent < .seconds(5))
        guard case .code(let code, let id) = answer else {
            Issue.record("no code: \(answer)")
            return
        }
        #expect(code == VerificationMail.code && !id.isEmpty)
        #expect(
            try await Operations.mailCode(configuration: configuration, address: address, logger: logger) == answer)
    }
}
