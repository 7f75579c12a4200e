#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes in and out with a deadline: plain TCP or TLS on top of it.
public protocol ByteStream: AnyObject {
    /// Writes every byte or throws.
    func writeAll(_ bytes: [UInt8], deadline: Deadline) throws(SocketError)
    /// Reads up to `maxBytes`; an empty result means the peer closed the connection.
    func read(maxBytes: Int, deadline: Deadline) throws(SocketError) -> [UInt8]
}

/// One non-blocking TCP socket, owned: closed in `deinit`.
public final class TCPConnection: ByteStream {
    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Connects to the first of `addresses` that answers, trying them in order (each within `timeout`, all within
    /// `deadline`), without any name lookup: the addresses were vetted already.
    /// - Parameter attempted: called before each attempt (a fetcher counts them).
    /// - Throws: the last attempt's error (``SocketError/connectFailed`` for none), or ``SocketError/timedOut``.
    public static func connect(
        toFirstOf addresses: [RemoteAddress], port: Int, timeout: Duration, deadline: Deadline,
        attempted: () -> Void = {}
    ) throws(SocketError) -> (TCPConnection, RemoteAddress) {
        var lastError = SocketError.connectFailed
        for address in addresses {
            if deadline.hasPassed { throw .timedOut }
            attempted()
            do {
                return (try connect(to: address, port: port, timeout: timeout, deadline: deadline), address)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Connects to one vetted address without any name lookup.
    /// - Throws: ``SocketError/connectFailed`` (refused, unreachable, connect timeout) or
    ///   ``SocketError/timedOut`` when the overall deadline passed.
    static func connect(to address: RemoteAddress, port: Int, timeout: Duration, deadline: Deadline)
        throws(SocketError) -> TCPConnection
    {
        let family = address.isV4 ? AF_INET : AF_INET6
        #if canImport(Glibc)
            let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .connectFailed }
        let connection = TCPConnection(descriptor: fd)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .connectFailed }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))

        let result: Int32 = address.withSocketAddress(port: port) { pointer, length in
            retryingOnEINTR { systemConnect(fd, pointer, length) }
        }
        if result != 0 {
            guard errno == EINPROGRESS else { throw .connectFailed }
            let connectDeadline = Deadline.after(timeout).earlier(deadline)
            guard try connection.wait(for: Int16(POLLOUT), deadline: connectDeadline) else {
                throw deadline.hasPassed ? .timedOut : .connectFailed
            }
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length) == 0, socketError == 0 else {
                throw .connectFailed
            }
        }
        return connection
    }

    /// Waits until the socket is ready for `events`; false when the deadline passed first.
    func wait(for events: Int16, deadline: Deadline) throws(SocketError) -> Bool {
        while true {
            let timeout = deadline.remainingMilliseconds
            if timeout == 0 { return false }
            var pfd = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&pfd, 1, timeout)
            if ready > 0 { return true }
            if ready == 0 { continue }  // loop re-checks the deadline
            if errno == EINTR { continue }
            throw .connectFailed
        }
    }

    public func writeAll(_ bytes: [UInt8], deadline: Deadline) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { raw in
                #if canImport(Glibc)
                    send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                #else
                    send(descriptor, raw.baseAddress, raw.count, 0)
                #endif
            }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                guard try wait(for: Int16(POLLOUT), deadline: deadline) else { throw .timedOut }
            } else {
                throw .broken
            }
        }
    }

    public func read(maxBytes: Int, deadline: Deadline) throws(SocketError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return Array(buffer[..<count]) }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                guard try wait(for: Int16(POLLIN), deadline: deadline) else { throw .timedOut }
                continue
            }
            throw .broken
        }
    }
}

/// `connect(2)`, named apart from ``TCPConnection/connect(to:port:timeout:deadline:)``.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

/// Calls `body` again while it fails with `EINTR`.
func retryingOnEINTR(_ body: () -> Int32) -> Int32 {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

extension RemoteAddress {
    var isV4: Bool {
        if case .v4 = self { return true }
        return false
    }

    /// Builds the `sockaddr` for this address and `port` and passes it to `body`.
    func withSocketAddress<R>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch self {
        case .v4(let value):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr = in_addr(s_addr: value.bigEndian)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(let bytes):
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &address.sin6_addr) { raw in
                for (index, byte) in bytes.enumerated() { raw[index] = byte }
            }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// Reads an address out of a `sockaddr` from `getaddrinfo`; nil for other families.
    init?(socketAddress pointer: UnsafePointer<sockaddr>) {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            let value = pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self = .v4(UInt32(bigEndian: value))
        case AF_INET6:
            var addr = pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            let bytes = withUnsafeBytes(of: &addr) { Array($0) }
            self = .v6(bytes)
        default:
            return nil
        }
    }
}
