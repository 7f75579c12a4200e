import Glibc
import HTTP1
import Logging
import Synchronization

/// What every event queue of one server shares: configuration, responder, encoder and counters.
///
/// Immutable apart from atomics, so it is `Sendable` without locks.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let encoder: HTTPResponseEncoder
    /// Connections being served (counted against `maxConnections`).
    let servedConnections = Atomic<Int>(0)
    /// Connections over the cap that are being answered 503.
    let refusingConnections = Atomic<Int>(0)
    /// Set once by `shutdown()`.
    let shuttingDown = Atomic<Bool>(false)
    /// A per-process random prefix so generated request ids rarely repeat across restarts.
    let requestIDPrefixBytes: [UInt8]
    /// The monotonic clock, copied out of the configuration for cheap calls.
    let clock: @Sendable () -> UInt64

    /// Most over-cap connections kept open at once to deliver their 503; beyond, they are closed at once.
    static let maxRefusingConnections = 64

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        encoder = HTTPResponseEncoder(serverName: configuration.serverName)
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        requestIDPrefixBytes = (0..<6).map { Array("0123456789abcdef".utf8)[Int((random >> ($0 * 4)) & 0xF)] }
        clock = configuration.clock
    }

    var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

    var openConnectionCount: Int {
        servedConnections.load(ordering: .relaxed) + refusingConnections.load(ordering: .relaxed)
    }
}
