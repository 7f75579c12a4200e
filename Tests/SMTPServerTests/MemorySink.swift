import SMTPServer
import Synchronization

/// An in-memory mail store for the loopback tests: `alice`, `bob` and `carol` at `local.test` exist,
/// other names there do not, every other domain is remote. A sender of `fail@remote.test` makes
/// delivery throw; `slow@remote.test` makes it take `slowDelay`.
final class MemorySink: SMTPMailSink {
    struct Stored: Sendable, Equatable {
        let envelope: SMTPEnvelope
        let data: [UInt8]
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    struct StoreFailure: Error {}

    let slowDelay: Duration
    private let stored = Mutex<[Stored]>([])
    private let begun = Mutex(0)

    /// Deliveries begun, stored or not.
    var deliveriesBegun: Int { begun.withLock { $0 } }

    init(slowDelay: Duration = .milliseconds(500)) {
        self.slowDelay = slowDelay
    }

    /// Every message stored, in order.
    var messages: [Stored] { stored.withLock { $0 } }

    func verdict(forRecipient address: String) async -> SMTPRecipientVerdict {
        let parts = address.lowercased().split(separator: "@")
        guard parts.count == 2, parts[1] == "local.test" else { return .relayDenied }
        return ["alice", "bob", "carol"].contains(parts[0]) ? .accept : .unknownLocal
    }

    func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        begun.withLock { $0 += 1 }
        if envelope.mailFrom == "fail@remote.test" { throw StoreFailure() }
        if envelope.mailFrom == "slow@remote.test" { try await Task.sleep(for: slowDelay) }
        return stored.withLock {
            $0.append(Stored(envelope: envelope, data: data))
            return "M\($0.count)"
        }
    }
}
