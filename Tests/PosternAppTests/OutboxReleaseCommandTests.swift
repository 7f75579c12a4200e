import Foundation
import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern mail outbox` lists held mail with its reason, and `--release ID|--all` releases it through the checks of
/// a new submission: held while a reason holds, saying which; queued to leave once none does.
@Suite("postern mail outbox --release")
struct OutboxReleaseCommandTests {
    @Test(
        "held mail says why; a release while the reason holds keeps it held; with delivery on and any sender it is queued",
        arguments: StorageBackend.allCases)
    func release(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let logger = Logger(label: "outbox-release-test")
        let agent = try await harness.signUp("holder")
        _ = try await harness.send(from: agent, to: ["far@elsewhere.example"], subject: "Held", text: "Hi.")
        let off = harness.server.runtime.configuration
        #expect(off.outbound.mode == .off)

        let listed = try await Operations.outbox(configuration: off, logger: logger)
        #expect(listed.count == 1)
        #expect(listed.first?.hasSuffix("held: outbound delivery is off on this server") == true, "\(listed)")
        let id = try #require(listed.first?.split(separator: " ").first.map { String($0) })

        #expect(
            try await Operations.releaseOutbox(configuration: off, id: id, logger: logger)
                == [
                    "\(id)  still held: outbound delivery is off in this command's configuration",
                    "judged with this command's configuration (POSTERN_OUTBOUND_DELIVERY=off here); a running "
                        + "server's settings are not read: give this command the server's --config",
                ])
        var on = off
        on.outbound.mode = .direct
        #expect(
            try await Operations.releaseOutbox(configuration: on, id: nil, logger: logger)
                == [
                    "\(id)  still held: this inbox needs an owner before it can write outside",
                    Operations.judgedHere(on),
                ])
        #expect(try await Operations.outbox(configuration: on, logger: logger).count == 1)

        on.outboundQueue.senders = .all
        #expect(
            try await Operations.releaseOutbox(configuration: on, id: nil, logger: logger)
                == ["\(id)  released: 1 recipient queued to leave"])
        #expect(try await Operations.outbox(configuration: on, logger: logger).isEmpty)
        let queue = try await Operations.queue(configuration: on, .list, logger: logger)
        #expect(queue.contains { $0.contains("far@elsewhere.example") }, "\(queue)")

        await #expect(throws: OutboxReleaseError.notFound(id)) {
            _ = try await Operations.releaseOutbox(configuration: on, id: id, logger: logger)
        }
    }
}
