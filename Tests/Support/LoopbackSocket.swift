import Foundation
import Glibc

/// Blocking TCP client sockets to 127.0.0.1 for the loopback tests.
public enum LoopbackSocket {
    /// A connect or socket failure, with its errno.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// Connects to 127.0.0.1:`port` with send and receive timeouts of `timeout` seconds, from `source`
    /// (another loopback address such as 127.0.0.2, to be another client) when given.
    /// - Returns: the connected descriptor; the caller closes it.
    public static func connect(port: Int, timeout: Double = 30, from source: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw Failure(description: "bind \(source): \(code)")
            }
        }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "connect: \(code)")
        }
        return fd
    }

    /// Sends every byte of `bytes` on `fd`.
    /// - Throws: ``Failure`` when the socket fails or the send timeout passes.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw Failure(description: "send: \(errno)") }
            offset += n
        }
    }

    /// Reads what `fd` has (up to 64 KiB) onto the end of `buffer`; false at the end of input.
    /// - Throws: ``Failure`` when the socket fails or the receive timeout passes.
    public static func receive(_ fd: Int32, into buffer: inout [UInt8]) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
        if n == 0 { return false }
        throw Failure(description: "recv: errno \(errno)")
    }
}

/// Runs blocking socket work on a plain thread, off Swift's cooperative pool, so that a server's tasks (which run on
/// that pool) are never starved by a blocked test.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
