import ServerKit
import SocketServer

/// The sockets ``PosternRuntime/build(configuration:logger:clock:accessLog:services:metrics:)`` binds besides HTTP's,
/// before anything is served, named by the listener each is for; a listener that is off has none.
struct ListenerSockets: Sendable {
    /// A listener with a socket of its own; the raw value is its name in `serve`'s JSON line.
    enum Name: String, CaseIterable, Sendable {
        case smtp, sandbox, imap, imaps, pop3, pop3s, submission, submissions, metrics
    }

    private var sockets: [Name: ListeningSocket] = [:]

    /// The socket of `name`; nil when that listener is off.
    subscript(name: Name) -> ListeningSocket? { sockets[name] }

    /// Binds `host:port` for `name` now, so that a clash stops the start, named; a nil `port` leaves it off.
    /// - Throws: ``ListenError`` naming the address when it cannot be bound.
    mutating func bind(_ name: Name, host: String, port: Int?) throws {
        guard let port else { return }
        sockets[name] = try ListenError.bind(host: host, port: port)
    }

    /// The address of `name`'s socket as `host:port` (the real port with port 0); nil when that listener is off.
    func address(_ name: Name) -> String? {
        sockets[name].map { PublicIdentity.authority(host: $0.host, port: $0.port) }
    }
}
