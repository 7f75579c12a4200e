import Foundation
import Glibc
import PosternTestSupport
import WebSocket

/// A blocking loopback WebSocket client that writes raw bytes (so tests send exactly the frames they mean, broken
/// ones included) and reads the server's frames. `@unchecked Sendable`: each test uses it from one thread at a time.
final class WebSocketTestClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to 127.0.0.1's `port`, from the loopback address `source` when given (another client).
    init(port: Int, timeout: Double = 60, from source: String? = nil) throws {
        fd = try LoopbackSocket.connect(port: port, timeout: timeout, from: source)
    }

    deinit { Glibc.close(fd) }

    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    /// The opening handshake's request, with `extra` header lines.
    static func handshake(path: String = "/ws", extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\n"
            + "Sec-WebSocket-Version: 13\r\n\(extra)\r\n"
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws { try LoopbackSocket.sendAll(fd, bytes) }

    /// Sends a masked frame.
    func send(_ opcode: WebSocketOpcode, _ payload: [UInt8] = [], fin: Bool = true) throws {
        try send(WebSocketFrameEncoder.encodeMasked(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), mask: (9, 8, 7, 6)))
    }

    private func fill() throws -> Bool { try LoopbackSocket.receive(fd, into: &buffer) }

    /// The response head: status and header lines (lowercased names); the body is left unread.
    func readHead() throws -> (status: Int, headers: [String: String]) {
        while true {
            if let end = buffer.indices.dropLast(3).first(where: { Array(buffer[$0..<($0 + 4)]) == [13, 10, 13, 10] }) {
                let text = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = text.components(separatedBy: "\r\n")
                let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return (status, headers)
            }
            guard try fill() else { throw Failure(description: "EOF before the response head") }
        }
    }

    /// The next server frame (which must be unmasked).
    func readFrame() throws -> WebSocketFrame {
        while true {
            if let frame = try WebSocketServerFrames.next(in: &buffer) { return frame }
            guard try fill() else { throw Failure(description: "EOF before a frame") }
        }
    }

    /// The code of the close frame `frame`, nil for any other frame or an empty close.
    static func closeCode(_ frame: WebSocketFrame) -> UInt16? {
        guard frame.opcode == .close, frame.payload.count >= 2 else { return nil }
        return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
    }

    /// Whether the server closed the connection (EOF) within the timeout, whatever came before it.
    func isClosedByPeer() -> Bool {
        do {
            while try fill() { buffer.removeAll() }
            return true
        } catch {
            return false
        }
    }
}
