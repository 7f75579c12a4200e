import Foundation
import Glibc
import PosternTestSupport
import SocketServer

/// A second protocol for the tests: each line in is answered `echo: <line>` by a job that completes
/// off the loop; `quit` closes; an idle connection closes after `idle` nanoseconds; shutdown closes
/// after the answers in flight. Small, but it uses every event and action, as SMTP will.
struct LineEchoMachine: ConnectionStateMachine {
    let idle: UInt64
    var input: [UInt8] = []
    var output = OutputBuffer()
    var inFlight = 0
    var stopping = false
    var closing = false

    var hasUnsentOutput: Bool { !output.isEmpty }

    func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try output.withUnsentBytes(body)
    }

    mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        switch event {
        case .opened:
            output.append(Array("hello\r\n".utf8))
            actions.append(.write)
            actions.append(.armTimer(deadline: now + idle))
        case .bytesRead(let bytes):
            input.append(contentsOf: bytes)
            while let end = input.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: input[..<end], as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)
                input.removeSubrange(...end)
                if line == "quit" {
                    closing = true
                    output.append(Array("bye\r\n".utf8))
                    actions.append(.write)
                    return
                }
                inFlight += 1
                actions.append(.perform(LineEchoService.Line(line)))
            }
            actions.append(.armTimer(deadline: now + idle))
        case .completed(let value):
            let answer = (value as? LineEchoService.Line)?.text ?? "?"
            inFlight -= 1
            output.append(Array("echo: \(answer)\r\n".utf8))
            actions.append(.write)
        case .wrote(let count):
            output.consume(count)
            if output.isEmpty && (closing || (stopping && inFlight == 0)) { actions.append(.close) }
        case .writeBlocked:
            actions.append(.setInterest(read: false, write: true))
        case .writable:
            actions.append(.setInterest(read: true, write: false))
            actions.append(.write)
        case .timerFired:
            actions.append(.close)
        case .shutdown:
            stopping = true
            if inFlight == 0 && output.isEmpty { actions.append(.close) }
        case .readEOF, .reset:
            actions.append(.close)
        }
    }
}

struct LineEchoService: StreamService {
    let idle: UInt64
    /// Serial, so jobs complete in the order they were asked for (on a concurrent queue two 1 ms
    /// jobs could finish in either order, and the test that expects them in order failed once in CI).
    let jobs = DispatchQueue(label: "test.line-echo.jobs")

    func makeMachine(peer: String, refusing: Bool, loop: EventLoop) -> any ConnectionStateMachine {
        LineEchoMachine(idle: idle)
    }

    /// A line as a job or an answer.
    final class Line: Sendable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    func perform(
        _ value: any AnyObject & Sendable, on loop: EventLoop,
        completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        let job = (value as? Line)?.text ?? "?"
        // Off the loop, one at a time, like a deferred HTTP handler or an SMTP message being stored.
        jobs.async {
            usleep(job == "slow" ? 300_000 : 1_000)
            completion(Line(job))
        }
    }
}

/// A blocking line client.
final class LineClient {
    let fd: Int32

    init(port: Int) throws {
        fd = try LoopbackSocket.connect(port: port, timeout: 3)
    }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until `lines` lines arrived or the peer closed; returns them.
    func readLines(_ lines: Int) -> [String] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.filter({ $0 == UInt8(ascii: "\n") }).count < lines {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self).split(separator: "\r\n").map(String.init)
    }

    /// Whether the server closed the connection (recv returns 0).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }
}
