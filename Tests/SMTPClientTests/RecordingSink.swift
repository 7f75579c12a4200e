import SMTPServer
import Synchronization

/// A mail sink for Postern's own SMTP server as the client's peer: every address at `local.test` exists except
/// `nobody`, other domains are refused as relay, and every message is kept in memory.
final class RecordingSink: SMTPMailSink {
    struct Stored: Sendable, Equatable {
        let envelope: SMTPEnvelope
        let data: [UInt8]
    }

    private let stored = Mutex<[Stored]>([])

    var messages: [Stored] { stored.withLock { $0 } }

    func verdict(forRecipient address: String) async -> SMTPRecipientVerdict {
        let parts = address.lowercased().split(separator: "@")
        guard parts.count == 2, parts[1] == "local.test" else { return .relayDenied }
        return parts[0] == "nobody" ? .unknownLocal : .accept
    }

    func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        stored.withLock {
            $0.append(Stored(envelope: envelope, data: data))
            return "Q\($0.count)"
        }
    }
}
