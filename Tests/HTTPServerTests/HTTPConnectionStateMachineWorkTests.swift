import HTTP1
import SocketServer
import Testing

@testable import HTTPServer

/// Drives the pure machine alone: no responder, no clock, no loop state; the test is the request pipeline.
private struct Bare {
    var machine: HTTPConnectionStateMachine
    var actions: [ConnectionAction] = []
    let date = Array("Tue, 14 Nov 2023 22:13:20 GMT".utf8)

    init(refusing: Bool = false) {
        machine = HTTPConnectionStateMachine(
            configuration: HTTPServerConfiguration(), encoder: HTTPResponseEncoder(), headerMemo: nil,
            refusing: refusing)
        machine.handle(.opened, now: 0, into: &actions)
    }

    mutating func receive(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { machine.handle(.bytesRead($0), now: 0, into: &actions) }
    }

    var written: String {
        machine.output.withUnsentBytes { String(decoding: $0, as: UTF8.self) }
    }
}

@Suite("The HTTP connection machine alone: it hands out work and encodes the answers it is given")
struct HTTPConnectionStateMachineWorkTests {
    @Test("a head is handed out for routing; the route's body limit refuses a longer body with the head's path")
    func headThenBody() {
        var bare = Bare()
        bare.receive("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n")
        guard case .head(let head)? = bare.machine.nextWork() else {
            Issue.record("expected a head")
            return
        }
        #expect(head.path == "/p" && head.contentLength == 5)
        bare.machine.routed(bodyLimit: 3)
        guard case .refusal(let status, let path)? = bare.machine.nextWork() else {
            Issue.record("expected a refusal")
            return
        }
        #expect(status == .payloadTooLarge && path == "/p")
        bare.machine.refuse(with: .text(status, "too large"), date: bare.date)
        #expect(bare.machine.nextWork() == nil)
        #expect(bare.written.hasPrefix("HTTP/1.1 413 ") && bare.written.contains("Connection: close\r\n"))
    }

    @Test("requests answered out of order are written in request order, with the ids they were given")
    func answersInOrder() {
        var bare = Bare()
        bare.receive("GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n")
        var sequences: [UInt64] = []
        while let work = bare.machine.nextWork() {
            guard case .request(_, let sequence) = work else {
                Issue.record("expected requests only")
                return
            }
            sequences.append(sequence)
            bare.machine.awaitAnswer(now: 0)  // answered below, in a later turn
        }
        #expect(sequences.count == 2)
        bare.machine.answer(.text(.ok, "B"), sequence: sequences[1], requestID: "id-b", date: bare.date)
        #expect(bare.written.isEmpty)
        bare.machine.answer(.text(.ok, "A"), sequence: sequences[0], requestID: "id-a", date: bare.date)
        let written = bare.written
        let a = written.range(of: "X-Request-Id: id-a")
        let b = written.range(of: "X-Request-Id: id-b")
        #expect(a != nil && b != nil && a!.lowerBound < b!.lowerBound)
        #expect(written.hasSuffix("\r\n\r\nB"))
    }

    @Test("over the connection cap, the first work is a 503 refusal, and nothing is parsed")
    func refusing() {
        var bare = Bare(refusing: true)
        bare.receive("GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        guard case .refusal(let status, nil)? = bare.machine.nextWork() else {
            Issue.record("expected a refusal")
            return
        }
        #expect(status == .serviceUnavailable)
        bare.machine.refuse(with: .text(status, "busy"), date: bare.date)
        #expect(bare.machine.nextWork() == nil)
        #expect(bare.written.hasPrefix("HTTP/1.1 503 "))
    }
}

extension HTTPConnectionStateMachine.Work: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.head(let a), .head(let b)): return a.method == b.method && a.target == b.target
        case (.request(let a, let x), .request(let b, let y)): return a.target == b.target && x == y
        case (.refusal(let a, let p), .refusal(let b, let q)): return a == b && p == q
        default: return false
        }
    }
}
