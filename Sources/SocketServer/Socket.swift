import CEpoll
import Glibc

/// Socket set-up and address helpers. Every C failure becomes a `SystemCallError` here.
enum Socket {
    /// Creates a non-blocking listening TCP socket bound to `host:port`.
    /// - Returns: the descriptor and the bound port (useful when `port` is 0).
    static func listen(host: String, port: Int, backlog: Int32) throws -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw SystemCallError(call: "getaddrinfo(\(host))", errno: EADDRNOTAVAIL)
        }
        defer { freeaddrinfo(result) }
        let info = first.pointee
        let fd = try SystemCall.retrying("socket") {
            socket(info.ai_family, info.ai_socktype | Int32(socketCloseOnExec) | Int32(socketNonBlocking), 0)
        }
        do {
            var one: Int32 = 1
            _ = try SystemCall.retrying("setsockopt(SO_REUSEADDR)") {
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            _ = try SystemCall.retrying("bind") { bind(fd, info.ai_addr, info.ai_addrlen) }
            _ = try SystemCall.retrying("listen") { Glibc.listen(fd, backlog) }
            return (fd, try boundPort(fd))
        } catch {
            SystemCall.close(fd)
            throw error
        }
    }

    /// The local port a socket is bound to.
    static func boundPort(_ fd: Int32) throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                try SystemCall.retrying("getsockname") { getsockname(fd, address, &length) }
            }
        }
        return port(of: storage)
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec socket.
    /// - Returns: the descriptor and the peer address as text, or nil when none is pending.
    static func accept(_ listener: Int32) throws -> (fd: Int32, peer: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = try withUnsafeMutablePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                try SystemCall.nonBlocking("accept4") { postern_accept(listener, address, &length) }
            }
        }
        guard let fd else { return nil }
        var one: Int32 = 1
        // Responses are written whole; Nagle would only add latency to the last segment.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return (fd, addressText(storage))
    }

    /// The IP address in `storage` as text (`127.0.0.1`, `::1`); empty when not IP.
    static func addressText(_ storage: sockaddr_storage) -> String {
        switch Int32(storage.ss_family) {
        case AF_INET: numericText(AF_INET, field(of: storage, as: sockaddr_in.self) { $0.sin_addr })
        case AF_INET6: numericText(AF_INET6, field(of: storage, as: sockaddr_in6.self) { $0.sin6_addr })
        default: ""
        }
    }

    private static func port(of storage: sockaddr_storage) -> Int {
        switch Int32(storage.ss_family) {
        case AF_INET: Int(UInt16(bigEndian: field(of: storage, as: sockaddr_in.self) { $0.sin_port }))
        case AF_INET6: Int(UInt16(bigEndian: field(of: storage, as: sockaddr_in6.self) { $0.sin6_port }))
        default: 0
        }
    }

    /// `field` of `storage` read as the address type its family names (`sockaddr_in`, `sockaddr_in6`).
    private static func field<Address, Field>(
        of storage: sockaddr_storage, as _: Address.Type, _ field: (Address) -> Field
    ) -> Field {
        var storage = storage
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: Address.self, capacity: 1) { field($0.pointee) }
        }
    }

    /// `inet_ntop`'s text of the address `ip` of `family`; empty when it fails.
    private static func numericText<IP>(_ family: Int32, _ ip: IP) -> String {
        var ip = ip
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(family, &ip, &text, socklen_t(text.count)) != nil else { return "" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

// Linux-only socket flags as plain integers.
let socketCloseOnExec = SOCK_CLOEXEC.rawValue
let socketNonBlocking = SOCK_NONBLOCK.rawValue
