import ComputePool
import Foundation
import Glibc

/// A stub resolver: asks one recursive resolver one question over UDP, and again over TCP when the answer was
/// truncated (RFC 7766), within a timeout. The blocking socket calls run on ``threads``, never on an event loop or the
/// cooperative pool.
public struct DNSResolver: Sendable {
    /// A pool for lookups to block on: 16 threads, with 256 lookups allowed to wait; past that a lookup fails at once
    /// (``DNSError/overloaded``) instead of taking one more thread, as a global queue would. Its owner (the runtime)
    /// shares it among its resolvers and shuts it down with the rest of its threads; threads start on first use.
    public static func threadPool() -> WorkerPool {
        WorkerPool(threads: 16, queueLimit: 256, name: "postern-dns")
    }

    public let server: DNSServerAddress
    /// The longest the whole lookup (UDP, then TCP if needed) may take, waiting for a thread included.
    public let timeout: Duration
    let threads: WorkerPool

    /// - Parameters:
    ///   - server: the recursive resolver asked.
    ///   - timeout: the longest a whole lookup may take.
    ///   - threads: where lookups block; a pool of this resolver's own (``threadPool()``, its threads ending with it)
    ///     unless given the owner's shared one.
    public init(server: DNSServerAddress = .system, timeout: Duration = .seconds(3), threads: WorkerPool = threadPool())
    {
        self.server = server
        self.timeout = timeout
        self.threads = threads
    }

    /// The answer to `type` records at `name`.
    /// - Throws: `DNSError`: the name cannot be asked, no answer in time, the server unreachable, nonsense back, or
    ///   too many lookups at once.
    public func query(_ name: String, _ type: DNSRecordType) async throws -> DNSAnswer {
        let query = try DNSQuery.random(name: name, type: type)
        let server = server
        let deadline = ContinuousClock.now + timeout
        do {
            return try await threads.run { try Self.exchange(query, with: server, deadline: deadline) }
        } catch is WorkerPoolError {
            throw DNSError.overloaded
        }
    }

    static func exchange(_ query: DNSQuery, with server: DNSServerAddress, deadline: ContinuousClock.Instant) throws
        -> DNSAnswer
    {
        let datagram = try DNSSocket(server: server, type: Int32(SOCK_DGRAM.rawValue), deadline: deadline)
        try datagram.send(query.bytes)
        var response: DNSResponse
        while true {
            // Datagrams that do not answer this query (a late answer to another, a forged one with another id or
            // its question in another case) are skipped.
            let datagram = try datagram.receiveDatagram()
            if let parsed = try? DNSResponse(datagram, answering: query) {
                response = parsed
                break
            }
        }
        guard response.truncated else { return response.answer }
        let stream = try DNSSocket(server: server, type: Int32(SOCK_STREAM.rawValue), deadline: deadline)
        let bytes = query.bytes
        try stream.send([UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes)
        let length = try stream.receive(exactly: 2)
        response = try DNSResponse(
            try stream.receive(exactly: Int(length[0]) << 8 | Int(length[1])), answering: query)
        return response.answer
    }
}

/// One connected socket to the resolver whose every wait ends at `deadline`.
final class DNSSocket {
    let fd: Int32
    let deadline: ContinuousClock.Instant

    init(server: DNSServerAddress, type: Int32, deadline: ContinuousClock.Instant) throws {
        let family = DNSServerAddress.family(of: server.host) ?? AF_INET
        fd = socket(family, type | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DNSError.unreachable(errno) }
        self.deadline = deadline
        let connected = server.withSocketAddress { connect(fd, $0, $1) }
        if connected != 0 {
            guard errno == EINPROGRESS else {
                let code = errno
                close(fd)
                throw DNSError.unreachable(code)
            }
            try wait(for: Int16(POLLOUT))
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else {
                close(fd)
                throw DNSError.unreachable(error)
            }
        }
    }

    deinit { close(fd) }

    /// Waits until the socket is ready for `events`, or throws `timeout` at the deadline.
    func wait(for events: Int16) throws {
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            guard milliseconds > 0 else { throw DNSError.timeout }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: milliseconds))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw DNSError.unreachable(errno) }
        }
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int16(POLLOUT))
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw DNSError.unreachable(errno)
            }
            offset += sent
        }
    }

    /// One datagram (at most 64 KiB).
    func receiveDatagram() throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65_535)
        while true {
            try wait(for: Int16(POLLIN))
            let count = recv(fd, &buffer, buffer.count, 0)
            if count >= 0 { return Array(buffer[..<count]) }
            if errno == EAGAIN || errno == EINTR { continue }
            // ECONNREFUSED: nothing listens on the resolver's port.
            throw DNSError.unreachable(errno)
        }
    }

    /// Exactly `count` bytes of the stream.
    func receive(exactly count: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: max(count, 1))
        while result.count < count {
            try wait(for: Int16(POLLIN))
            let read = recv(fd, &buffer, count - result.count, 0)
            if read > 0 {
                result.append(contentsOf: buffer[..<read])
            } else if read == 0 {
                throw DNSError.malformedResponse
            } else if errno != EAGAIN && errno != EINTR {
                throw DNSError.unreachable(errno)
            }
        }
        return result
    }
}
