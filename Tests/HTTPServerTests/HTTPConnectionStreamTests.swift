import HTTP1
import Synchronization
import Testing

@testable import HTTPServer

private let events = "GET /events HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n"
private let idleTimer = "timer(+30000000000)"
private let writeTimer = "timer(+30000000000)"
private let head = HTTPResponse(status: .ok, headers: ["Content-Type": "text/event-stream"])

/// Counts the `onEnd` calls of a stream.
final class StreamEndCount: Sendable {
    let count = Atomic<Int>(0)
    func watch(_ stream: HTTPResponseStream) { stream.onEnd { self.count.add(1, ordering: .relaxed) } }
    var value: Int { count.load(ordering: .relaxed) }
}

@Suite("HTTP connection state machine: open-ended responses (text/event-stream), fed event by event")
struct HTTPConnectionStreamTests {
    /// A harness with a stream open and its head written.
    static func opened(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) -> (MachineHarness, StreamEndCount) {
        var h = MachineHarness(configure)
        h.send(.opened)
        h.receive(events)
        let ends = StreamEndCount()
        ends.watch(h.streamJobs[0].stream)
        h.stream(.open(head))
        _ = h.writeAll()
        return (h, ends)
    }

    @Test(
        "HTTP/1.1: the head says chunked, no Content-Length, Connection: close; each write one chunk; no idle timeout")
    func headAndBytes() {
        var h = MachineHarness()
        #expect(h.send(.opened) == [idleTimer])
        #expect(h.receive(events) == ["stream(GET /events)", "cancelTimer"])
        #expect(h.stream(.open(head)) == ["write"])
        let (written, after) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"))
        #expect(written.contains("Connection: close\r\n"))
        #expect(!written.contains("Content-Length"))
        #expect(written.hasSuffix("\r\nTransfer-Encoding: chunked\r\n\r\n"))
        #expect(after.isEmpty)  // no idle timer: the stream is in progress
        #expect(h.stream(.bytes(Array("event: ping\n\n".utf8))) == ["write"])
        #expect(h.writeAll().written == "d\r\nevent: ping\n\n\r\n")
        h.advance(seconds: 3600)
        #expect(h.send(.timerFired).isEmpty)
        #expect(h.stream(.bytes(Array("data: 1\n\n".utf8))) == ["write"])
        #expect(h.writeAll().written == "9\r\ndata: 1\n\n\r\n")
        #expect(h.stream(.bytes([])).isEmpty)  // an empty write is no chunk: it would end the body
        h.stream(.bytes(Array(repeating: UInt8(ascii: "x"), count: 300)))
        #expect(h.writeAll().written == "12c\r\n" + String(repeating: "x", count: 300) + "\r\n")
    }

    @Test("HTTP/1.1: the head's body is the first chunk, and finish sends the last chunk before the close")
    func chunkedFirstAndLast() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive(events)
        let first = Array("retry: 5\n\n".utf8)
        h.stream(.open(HTTPResponse(status: .ok, headers: ["Content-Type": "text/event-stream"], body: first)))
        h.stream(.finish)
        let (written, after) = h.writeAll()
        #expect(written.hasSuffix("Transfer-Encoding: chunked\r\n\r\na\r\nretry: 5\n\n\r\n0\r\n\r\n"), "\(written)")
        #expect(after.first == "shutdownWrite")
    }

    @Test("HTTP/1.0, which knows no chunks: the body is close-delimited, as written")
    func http10() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("GET /events HTTP/1.0\r\nHost: t\r\n\r\n")
        h.stream(.open(head))
        h.stream(.bytes(Array("data: 1\n\n".utf8)))
        h.stream(.finish)
        let (written, _) = h.writeAll()
        #expect(!written.contains("Transfer-Encoding") && !written.contains("Content-Length"))
        #expect(written.hasSuffix("Connection: close\r\n\r\ndata: 1\n\n"), "\(written)")
    }

    @Test("fed one byte at a time, the request opens one stream; what the client sends meanwhile is never parsed")
    func byteByByte() {
        var h = MachineHarness()
        h.send(.opened)
        var performed: [String] = []
        for byte in events { performed += h.receive(String(byte)).filter { $0.hasPrefix("stream") } }
        #expect(performed == ["stream(GET /events)"])
        h.stream(.open(head))
        _ = h.writeAll()
        for byte in "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n" { #expect(h.receive(String(byte)).isEmpty) }
        #expect(h.jobs.isEmpty && h.streamJobs.count == 1)
    }

    @Test("finish: the connection lingers once the last bytes are written, and the producer is told the stream ended")
    func finish() {
        var (h, ends) = Self.opened()
        h.stream(.bytes(Array("last\n\n".utf8)))
        h.stream(.finish)
        let (written, after) = h.writeAll()
        #expect(written == "6\r\nlast\n\n\r\n0\r\n\r\n")
        #expect(after.first == "shutdownWrite")
        #expect(h.send(.readEOF) == ["close"])
        #expect(ends.value == 1)
    }

    @Test("the client closing its side ends the stream at once and tells the producer")
    func clientLeaves() {
        var (h, ends) = Self.opened()
        #expect(h.send(.readEOF) == ["close"])
        #expect(ends.value == 1)
        #expect(h.stream(.bytes(Array("late".utf8))).isEmpty)
    }

    @Test("a reset ends the stream and tells the producer")
    func reset() {
        var (h, ends) = Self.opened()
        #expect(h.send(.reset) == ["close"])
        #expect(ends.value == 1)
    }

    @Test("shutdown ends an idle stream: its last chunk goes out, our side is shut, then the socket closes")
    func shutdown() {
        var (h, ends) = Self.opened()
        #expect(h.send(.shutdown).first == "write")
        #expect(ends.value == 1)
        let (written, after) = h.writeAll()
        #expect(written == "0\r\n\r\n")
        #expect(after.first == "shutdownWrite")
        #expect(h.send(.readEOF) == ["close"])
    }

    @Test("a reader too slow: unsent bytes past the cap end the stream; whole chunks, then the last, still go out")
    func backPressure() {
        var (h, ends) = Self.opened { $0.maxStreamBufferedBytes = 100 }
        let chunk = Array(repeating: UInt8(ascii: "x"), count: 40)  // 46 bytes as a chunk
        h.stream(.bytes(chunk))
        _ = h.writePartly(0)  // the socket takes nothing
        h.stream(.bytes(chunk))
        #expect(ends.value == 0)
        h.stream(.bytes(chunk))  // 138 unsent: over the cap
        #expect(ends.value == 1)
        #expect(h.machine.machine.output.unsentCount == 46 * 2 + 5)
        h.send(.writable)
        let (written, after) = h.writeAll()
        #expect(written.utf8.count == 46 * 2 + 5 && written.hasSuffix("x\r\n0\r\n\r\n"))
        #expect(after.first == "shutdownWrite")
    }

    @Test("a reader that stops reading: the write timeout closes the connection and ends the stream")
    func stalledReader() {
        var (h, ends) = Self.opened()
        h.stream(.bytes(Array(repeating: UInt8(ascii: "x"), count: 1000)))
        #expect(h.writePartly(10).actions.contains(writeTimer))
        h.advance(seconds: 30)
        #expect(h.send(.timerFired) == ["close"])
        #expect(ends.value == 1)
    }

    @Test("a writer that answers instead of streaming gets an ordinary response; the connection stays open")
    func answeredInstead() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive(events)
        h.stream(.response(.text(.unauthorized, "no")))
        let (written, after) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 401"))
        #expect(written.contains("Content-Length: 2\r\n"))
        #expect(!written.contains("Connection: close"))
        #expect(after == [idleTimer])
    }

    @Test("the stream waits its turn behind earlier responses; requests pipelined after it are not answered")
    func pipelined() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n" + events + "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(h.jobs.count == 2 && h.streamJobs.count == 1)
        h.stream(.open(head))
        h.stream(.bytes(Array("early\n\n".utf8)))
        #expect(!h.machine.hasUnsentOutput)
        h.complete("/hello")
        let (written, _) = h.writeAll()
        #expect(MachineHarness.statusLines(written) == ["HTTP/1.1 200", "HTTP/1.1 200"])
        #expect(written.hasSuffix("\r\n\r\n7\r\nearly\n\n\r\n"))
        h.complete("/hello")  // the request after the stream
        #expect(!h.machine.hasUnsentOutput)
    }

    @Test("HEAD: the stream's head goes out alone and the connection ends after it")
    func headRequest() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("HEAD /events HTTP/1.1\r\nHost: t\r\n\r\n")
        let ends = StreamEndCount()
        ends.watch(h.streamJobs[0].stream)
        h.stream(.open(head))
        #expect(ends.value == 1)
        h.stream(.bytes(Array("data: 1\n\n".utf8)))
        let (written, after) = h.writeAll()
        #expect(written.hasSuffix("Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n"))
        #expect(after.first == "shutdownWrite")
    }
}
