import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny blocking HTTP origin on 127.0.0.1, port 0, one thread per connection: real sockets, canned
/// raw responses per path, and a count of accepted connections.
public final class TestOrigin: Sendable {
    public struct Reply: Sendable {
        public var bytes: [UInt8]
        /// Seconds to wait before answering.
        public var delay: Double = 0
        /// Seconds between single bytes (0: all at once).
        public var trickle: Double = 0

        public init(bytes: [UInt8], delay: Double = 0, trickle: Double = 0) {
            self.bytes = bytes
            self.delay = delay
            self.trickle = trickle
        }
    }

    public let port: Int
    private let listener: Int32
    private struct State {
        var routes: [String: Reply] = [:]
        var accepted = 0
        var requests: [String] = []
        var stopped = false
    }

    private let state = Mutex(State())

    private var isStopped: Bool { state.withLock { $0.stopped } }

    public init() throws {
        (listener, port) = try LoopbackListener.open()
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting; connections in progress finish on their own.
    public func stop() {
        state.withLock { $0.stopped = true }
        // Only shut down here: the accept thread closes the descriptor when it leaves, so the number
        // cannot be reused by another test's socket while that thread may still call accept on it.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Serves `reply` at `path`.
    public func set(_ path: String, _ reply: Reply) {
        state.withLock { $0.routes[path] = reply }
    }

    /// Serves a complete response with `status`, extra header lines and `body`.
    public func set(_ path: String, status: Int = 200, headers: [String] = [], body: String, delay: Double = 0) {
        var head = "HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
        for line in headers { head += line + "\r\n" }
        set(path, Reply(bytes: Array((head + "\r\n" + body).utf8), delay: delay))
    }

    /// Serves a redirect to `location`.
    public func redirect(_ path: String, to location: String, status: Int = 302) {
        set(path, status: status, headers: ["Location: \(location)"], body: "")
    }

    /// Connections accepted so far.
    public var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// Request heads received so far, as text.
    public var receivedRequests: [String] { state.withLock { $0.requests } }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if isStopped { return }
                // EINTR, ECONNABORTED, EMFILE under load: keep serving rather than go silent.
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            if isStopped {
                close(client)
                return
            }
            state.withLock { $0.accepted += 1 }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.containsHeadEnd {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            received += buffer[..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let path = text.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "/"
        let reply = state.withLock { state in
            state.requests.append(text)
            return state.routes[path]
                ?? Reply(bytes: Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8))
        }
        if reply.delay > 0 { Thread.sleep(forTimeInterval: reply.delay) }
        if reply.trickle > 0 {
            for byte in reply.bytes {
                var one = byte
                if send(client, &one, 1, Int32(MSG_NOSIGNAL)) != 1 { return }
                Thread.sleep(forTimeInterval: reply.trickle)
            }
        } else {
            _ = reply.bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }
}

extension [UInt8] {
    fileprivate var containsHeadEnd: Bool {
        guard count >= 4 else { return false }
        for index in 0...(count - 4)
        where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return true
        }
        return false
    }
}
