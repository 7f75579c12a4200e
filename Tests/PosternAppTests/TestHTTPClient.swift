import Foundation
import PosternTestSupport
import WebSocket

#if canImport(Glibc)
import Glibc
#endif

enum TestClientError: Error {
    case connect(Int32)
    /// The server closed the connection (or reset it).
    case closed
    /// Nothing came for the client's receive timeout: the harness gave up, the server did not close.
    case timedOut(seconds: Int)
    case malformed(String)
}

/// A deliberately small HTTP/1.1 client over one keep-alive socket, so that end-to-end tests see exactly
/// the bytes on the wire (no client library rewriting headers).
///
/// Its socket calls block, so every public call runs on a Dispatch queue: blocking a thread of the
/// cooperative pool would starve the in-process server's own tasks. One test uses one client at a time,
/// hence `@unchecked Sendable`.
final class TestHTTPClient: TestRequestSending, @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Whether the open-ended body after the last `readResponse` is chunked (HTTP/1.1's streams are): ``readUntil(_:)``
    /// then reads its chunks' data, gathered in `streamed`.
    private var chunked = false
    private var streamed: [UInt8] = []
    /// How long one read waits for a byte before it throws ``TestClientError/timedOut(seconds:)``.
    let receiveTimeout: Int

    /// A connection to `host`:`port` whose reads give up after `receiveTimeout` seconds without a byte (120 by
    /// default; a harness whose requests make the server build a large answer waits longer, see
    /// ``JMAPHarness/startProcess(addressSpace:)``).
    init(port: Int, host: String = "127.0.0.1", receiveTimeout: Int = 120) throws {
        self.receiveTimeout = receiveTimeout
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 {
            close(fd)
            throw TestClientError.connect(errno)
        }
    }

    deinit { close(fd) }

    /// Sends raw bytes as they are.
    func sendRaw(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Sends one request and reads its response.
    func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> TestResponse {
        try await offload { try self.requestBlocking(method, path, headers: headers, body: body) }
    }

    /// Reads one response (after `sendRaw`).
    func readResponse(method: String = "GET") async throws -> TestResponse {
        try await offload { try self.readResponseBlocking(method: method) }
    }

    /// Runs blocking socket work on a Dispatch queue.
    private func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    func requestBlocking(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]
    ) throws -> TestResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        sendRaw(Array(head.utf8) + body)
        return try readResponseBlocking(method: method)
    }

    /// Reads one response; `HEAD` responses have no body whatever their Content-Length says.
    func readResponseBlocking(method: String = "GET") throws -> TestResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.firstRange(of: separator)?.lowerBound
            if headEnd == nil { try fill() }
        }
        let headText = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestClientError.malformed(headText) }
        let headers: [(String, String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        chunked = headers.contains { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }
        streamed = []
        let bodyLength = method == "HEAD" || status == 204 || status == 304 ? 0 : length
        while buffer.count < bodyLength { try fill() }
        let body = Array(buffer[..<bodyLength])
        buffer.removeFirst(bodyLength)
        return TestResponse(status: status, headers: headers, body: body)
    }

    /// Reads an open-ended body (a `text/event-stream`, after `readResponse`) until it holds `text`; what was read (a
    /// chunked body's data, without its framing).
    func readUntil(_ text: String) async throws -> String {
        try await offload {
            while true {
                if self.chunked { self.takeChunks() }
                let read = String(decoding: self.chunked ? self.streamed : self.buffer, as: UTF8.self)
                if read.contains(text) { return read }
                try self.fill()
            }
        }
    }

    /// Moves the whole chunks in `buffer` to `streamed`, their data only (RFC 9112 §7.1; no extensions, no trailer).
    private func takeChunks() {
        while let lineEnd = buffer.firstRange(of: [13, 10]),
            let size = Int(String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self), radix: 16),
            buffer.count >= lineEnd.upperBound + size + 2
        {
            streamed += buffer[lineEnd.upperBound..<(lineEnd.upperBound + size)]
            buffer.removeFirst(lineEnd.upperBound + size + 2)
        }
    }

    /// Reads the server's next WebSocket frame (after a `101`).
    func readWebSocketFrame() async throws -> WebSocketFrame {
        try await offload {
            while true {
                if let frame = try WebSocketServerFrames.next(in: &self.buffer) { return frame }
                try self.fill()
            }
        }
    }

    /// Reads until the server closes the connection; false when the read timed out (30 s) first.
    func readUntilClosed() async throws -> Bool {
        try await offload {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                if count == 0 { return true }
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                self.buffer.append(contentsOf: chunk[..<count])
            }
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                throw TestClientError.timedOut(seconds: receiveTimeout)
            }
            throw TestClientError.closed
        }
    }
}
