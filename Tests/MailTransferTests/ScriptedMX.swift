import Foundation
import PosternTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking SMTP receiver on 127.0.0.1, port 0, one thread per connection, whose STARTTLS is never had: broken (it
/// answers `220` to `STARTTLS` and then sends bytes that are not TLS and closes, a handshake that fails, as behind a
/// broken middlebox), refused with `454`, or not offered at all. Takes every recipient and message otherwise (so every
/// message it takes came in the clear). Records each connection's commands (verbs, upper-cased) and every message's
/// recipients.
final class ScriptedMX: Sendable {
    /// What the receiver does about STARTTLS.
    enum StartTLS: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Offered, answered `220`, then a handshake that fails.
        case broken
        /// Offered, answered `454 4.7.0` (TLS not available now).
        case refused
        /// Not offered in the `EHLO` reply.
        case absent

        var description: String { rawValue }
    }

    private struct State {
        var connections: [[String]] = []
        var messages: [[String]] = []
        var stopped = false
    }

    let port: Int
    private let listener: Int32
    private let state = Mutex(State())
    private let startTLS: StartTLS

    /// - Parameter startTLS: what becomes of STARTTLS (broken by default).
    init(startTLS: StartTLS = .broken) throws {
        self.startTLS = startTLS
        (listener, port) = try LoopbackListener.open()
        Thread { [self] in acceptLoop() }.start()
    }

    /// Each connection's commands so far, in order.
    var connections: [[String]] { state.withLock { $0.connections } }
    /// The recipients of each message taken so far.
    var messages: [[String]] { state.withLock { $0.messages } }

    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !state.withLock({ $0.stopped }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if state.withLock({ $0.stopped }) { return }
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            let index = state.withLock { state in
                state.connections.append([])
                return state.connections.count - 1
            }
            Thread { [self] in serve(client, index) }.start()
        }
    }

    private func serve(_ client: Int32, _ index: Int) {
        defer { close(client) }
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var pending: [UInt8] = []
        func write(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        func readLine() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                if let end = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeSubrange(...end)
                    return line.hasSuffix("\r") ? String(line.dropLast()) : line
                }
                let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return nil }
                pending += buffer[..<count]
            }
        }
        write("220 mx.far.test ESMTP scripted\r\n")
        var recipients: [String] = []
        while let line = readLine() {
            let verb = String(line.prefix { $0 != " " && $0 != ":" }).uppercased()
            state.withLock { $0.connections[index].append(verb) }
            switch verb {
            case "EHLO":
                let last = startTLS == .absent ? "8BITMIME" : "STARTTLS"
                write("250-mx.far.test\r\n250-PIPELINING\r\n250 \(last)\r\n")
            case "STARTTLS" where startTLS == .refused:
                write("454 4.7.0 TLS not available due to temporary reason\r\n")
            case "STARTTLS":
                write("220 2.0.0 go ahead\r\n")
                // The client's ClientHello first (data before it would be an injection, RFC 3207 §5), then bytes
                // that are no ServerHello: its handshake fails.
                var hello = [UInt8](repeating: 0, count: 4096)
                _ = hello.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                write("this is not TLS\r\n")
                return
            case "MAIL":
                recipients = []
                write("250 2.1.0 ok\r\n")
            case "RCPT":
                let address = line.split(separator: "<").last.map { String($0.prefix { $0 != ">" }) } ?? ""
                recipients.append(address)
                write("250 2.1.5 ok\r\n")
            case "DATA":
                write("354 go on\r\n")
                while let text = readLine(), text != "." {}
                state.withLock { [recipients] in $0.messages.append(recipients) }
                write("250 2.0.0 taken\r\n")
            case "RSET":
                recipients = []
                write("250 2.0.0 reset\r\n")
            case "QUIT":
                write("221 2.0.0 bye\r\n")
                return
            default: write("502 5.5.2 not here\r\n")
            }
        }
    }
}
