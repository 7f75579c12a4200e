import Foundation
import Logging
import MailAuth
import MailTransfer
import SMTPServer
import ServerTLS
import SocketServer
import Synchronization

/// A mail sink for Postern's SMTP server as the receiving MTA: every address at `far.test` exists except `nobody`,
/// other domains are refused as relay, and every message is kept in memory.
final class FarSink: SMTPMailSink {
    struct Stored: Sendable, Equatable {
        let envelope: SMTPEnvelope
        let data: [UInt8]
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    private let stored = Mutex<[Stored]>([])

    var messages: [Stored] { stored.withLock { $0 } }

    func verdict(forRecipient address: String) async -> SMTPRecipientVerdict {
        let parts = address.lowercased().split(separator: "@")
        guard parts.count == 2, parts[1] == "far.test" else { return .relayDenied }
        return parts[0] == "nobody" ? .unknownLocal : .accept
    }

    func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        stored.withLock {
            $0.append(Stored(envelope: envelope, data: data))
            return "Q\($0.count)"
        }
    }
}

/// Postern's SMTP server on loopback port 0 as a domain's mail exchanger, with STARTTLS when given a context.
final class LoopbackMX {
    let group: EventLoopGroup
    let server: SMTPServer
    let port: Int
    let sink = FarSink()

    init(tls: TLSServerContext? = nil) throws {
        group = try EventLoopGroup(count: 1, pollInterval: .milliseconds(20))
        group.startOnce()
        var configuration = SMTPServerConfiguration(host: "127.0.0.1", port: 0, hostname: "mx.far.test")
        configuration.tls = tls
        server = SMTPServer(configuration: configuration, sink: sink, group: group, logger: Logger(label: "test.mx"))
        port = try server.start()
    }

    func stop() async {
        await server.shutdown()
        await group.shutdownJoining()
    }
}

/// DKIM signers from a table (the key store's role).
struct SignerTable: DKIMSignerSource {
    let signers: [String: DKIMSigner]
    func dkimSigner(forDomain domain: String) throws -> DKIMSigner? { signers[domain] }
}

/// A key store whose keys cannot be read.
struct BrokenSigners: DKIMSignerSource {
    struct Unreadable: Error {}
    func dkimSigner(forDomain domain: String) throws -> DKIMSigner? { throw Unreadable() }
}
