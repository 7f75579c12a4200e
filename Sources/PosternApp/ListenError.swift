import Glibc
import SocketServer

/// The listen address cannot be bound: `cannot listen on 127.0.0.1:8080: Address already in use`.
public struct ListenError: Error, Sendable, CustomStringConvertible {
    /// The address as `host:port`.
    public let address: String
    /// The system's reason.
    public let reason: String

    /// `cannot listen on <address>: <reason>`.
    public var description: String { "cannot listen on \(address): \(reason)" }

    /// Binds `host:port`, turning a failure into a `ListenError` that names the address.
    static func bind(host: String, port: Int) throws -> ListeningSocket {
        do {
            return try ListeningSocket.bind(host: host, port: port)
        } catch let error as SocketServerError {
            let reason = error.errno == 0 ? error.code.rawValue : String(cString: strerror(error.errno))
            throw ListenError(address: PublicIdentity.authority(host: host, port: port), reason: reason)
        }
    }
}
