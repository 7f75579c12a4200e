import Foundation
import Glibc
import PosternTestSupport

/// A blocking loopback client that speaks raw bytes, so tests control exactly what is sent.
/// `@unchecked Sendable`: each test uses a client from one thread at a time.
final class TestClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to 127.0.0.1:`port` with send and receive timeouts.
    init(port: Int, timeout: Double = 60, from source: String? = nil) throws {
        fd = try LoopbackSocket.connect(port: port, timeout: timeout, from: source)
    }

    deinit {
        Glibc.close(fd)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        try LoopbackSocket.sendAll(fd, bytes)
    }

    /// Reads more bytes; false on EOF, throws on timeout or error.
    private func fill() throws -> Bool {
        try LoopbackSocket.receive(fd, into: &buffer)
    }

    /// Reads one response (Content-Length framed). `head` skips the body (HEAD requests).
    func readResponse(head: Bool = false) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            if buffer.count >= 4 {
                for i in 0...(buffer.count - 4) where Array(buffer[i..<(i + 4)]) == separator {
                    headEnd = i
                    break
                }
            }
            if headEnd != nil { break }
            guard try fill() else { throw Failure(description: "EOF before response head") }
        }
        let headText = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line") }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = Response(status: status, headers: headers, body: [])
        if head || status == 100 || status == 204 || status == 304 { return response }
        let length = Int(response.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length {
            guard try fill() else { throw Failure(description: "EOF in body") }
        }
        response.body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return response
    }

    /// Whether the server closed the connection: EOF (possibly after a final response) within the timeout.
    func isClosedByPeer() -> Bool {
        do {
            while try fill() { buffer.removeAll() }
            return true
        } catch {
            return false
        }
    }

    /// Sends a GET and reads its response.
    func get(_ path: String, headers: String = "") throws -> Response {
        try send("GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n")
        return try readResponse()
    }
}
