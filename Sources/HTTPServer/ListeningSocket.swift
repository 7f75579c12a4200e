import Glibc
import Synchronization

/// A bound, listening TCP socket, not yet served.
///
/// Binding apart from serving lets a caller learn the real port (the one the kernel chose for port 0)
/// before it builds what it serves, for example links that name the server's own address. Connections
/// that arrive before a server starts on the socket wait in the listen backlog.
///
/// ```swift
/// let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
/// let base = "http://127.0.0.1:\(listener.port)"
/// let server = HTTPServer(configuration: configuration, responder: makeResponder(base), logger: logger)
/// _ = try server.start(on: listener)
/// ```
public final class ListeningSocket: Sendable {
    /// The address the socket was bound with, as given (`127.0.0.1`, `0.0.0.0`, `::1`, `localhost`).
    public let host: String
    /// The real bound port: the one the kernel chose when bound with port 0.
    public let port: Int
    /// The descriptor until a server takes it; -1 after.
    private let descriptor: Atomic<Int32>

    private init(host: String, port: Int, descriptor: Int32) {
        self.host = host
        self.port = port
        self.descriptor = Atomic(descriptor)
    }

    /// Binds a non-blocking TCP socket to `host:port` and listens; nothing is accepted until a server
    /// starts on it (`HTTPServer.start(on:)`).
    /// - Parameters:
    ///   - host: a numeric address or a name resolved once; the first address found is bound.
    ///   - port: the TCP port; 0 lets the kernel choose a free one, then read back into `port`.
    ///   - backlog: the listen backlog; the kernel caps it at `net.core.somaxconn`.
    /// - Throws: `HTTPServerError` with code `.bindFailed` and the `errno` (in use, not a local address,
    ///   no permission).
    public static func bind(host: String, port: Int, backlog: Int32 = 4096) throws -> ListeningSocket {
        do {
            let bound = try Socket.listen(host: host, port: port, backlog: backlog)
            return ListeningSocket(host: host, port: bound.port, descriptor: bound.fd)
        } catch let error as SystemCallError {
            throw HTTPServerError(code: .bindFailed, errno: error.errno)
        }
    }

    /// Hands the descriptor over, once: to the server that will own and close it.
    /// - Returns: nil when it was handed over already.
    func take() -> Int32? {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        return fd >= 0 ? fd : nil
    }

    /// Closes the socket unless a server took it.
    deinit {
        if let fd = take() { SystemCall.close(fd) }
    }
}
