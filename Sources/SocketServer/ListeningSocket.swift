import Glibc
import Synchronization

/// A bound, listening TCP socket, not yet served. Binding first lets a caller learn the real port
/// (for port 0) before it builds what it serves.
public final class ListeningSocket: Sendable {
    /// The address it is bound to, as given.
    public let host: String
    /// The bound port (the chosen one when 0 was asked for).
    public let port: Int
    private let descriptor: Atomic<Int32>

    /// Binds and listens on `host:port`, non-blocking and close-on-exec, with `SO_REUSEADDR`.
    /// - Throws: `SocketServerError` (`bindFailed`) naming the address and port.
    public static func bind(host: String, port: Int, backlog: Int32 = 4096) throws -> ListeningSocket {
        do {
            let bound = try Socket.listen(host: host, port: port, backlog: backlog)
            return ListeningSocket(host: host, port: bound.port, fd: bound.fd)
        } catch let error as SystemCallError {
            throw SocketServerError(code: .bindFailed, errno: error.errno, address: "\(host):\(port)")
        }
    }

    private init(host: String, port: Int, fd: Int32) {
        self.host = host
        self.port = port
        descriptor = Atomic(fd)
    }

    /// Hands the descriptor to a server; nil when it was taken already.
    func take() -> Int32? {
        let fd = descriptor.exchange(-1, ordering: .relaxed)
        return fd >= 0 ? fd : nil
    }

    deinit {
        if let fd = take() { SystemCall.close(fd) }
    }
}

/// Why a server could not start.
public struct SocketServerError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public enum Code: String, Sendable {
        /// The address could not be bound or listened on (in use, not local, no permission).
        case bindFailed
        /// The server was started twice, or on a listener already in use.
        case alreadyStarted
        /// An event loop could not be set up (out of descriptors, or no epoll).
        case eventLoopSetupFailed
    }

    /// What failed.
    public let code: Code
    /// The `errno` of the failed call, 0 when not from a system call.
    public let errno: Int32
    /// The `host:port` concerned, when known.
    public let address: String?

    /// Creates an error.
    public init(code: Code, errno: Int32, address: String? = nil) {
        self.code = code
        self.errno = errno
        self.address = address
    }

    /// What failed, where, and the system's text for `errno`.
    public var description: String {
        var text = code == .bindFailed ? "cannot listen on \(address ?? "the address")" : code.rawValue
        if errno != 0 { text += ": \(String(cString: strerror(errno)))" }
        return text
    }
}
