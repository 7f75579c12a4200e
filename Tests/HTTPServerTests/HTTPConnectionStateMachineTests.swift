import HTTP1
import Testing

@testable import HTTPServer

private let get = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
private func getPath(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n" }
private let idleTimer = "timer(+30000000000)"
private let headerTimer = "timer(+10000000000)"
private let writeTimer = "timer(+30000000000)"

@Suite("HTTP connection state machine, driven by events with a mock clock and no socket")
struct HTTPConnectionStateMachineTests {
    @Test("open arms the idle timeout; a request is performed, answered, written, and the idle timeout re-armed")
    func oneRequest() {
        var h = MachineHarness()
        #expect(h.send(.opened) == [idleTimer])
        #expect(h.receive(get) == ["perform(GET /hello)", "cancelTimer"])
        #expect(h.jobs.first?.request.remoteAddress == "192.0.2.7")
        #expect(h.complete("/hello") == ["write"])
        let (written, actions) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(written.hasSuffix("\r\n\r\nok"))
        #expect(actions == [idleTimer])
        #expect(h.routeCount == 1)
    }

    @Test(
        "fed one byte at a time, a request is performed only after its last byte; the header timer starts at the first")
    func byteByByte() {
        var h = MachineHarness()
        h.send(.opened)
        let bytes = Array(get)
        var performed: [String] = []
        for (index, character) in bytes.enumerated() {
            let actions = h.receive(String(character))
            if index == 0 { #expect(actions == [headerTimer]) }
            if index > 0 && index < bytes.count - 1 { #expect(actions.isEmpty) }
            performed += actions.filter { $0.hasPrefix("perform") }
            h.advance(seconds: 0)
        }
        #expect(performed == ["perform(GET /hello)"])
    }

    @Test("a request with a body is routed once: the route found at the head decides the body limit and is answered")
    func routedOnce() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n")
        #expect(h.routeCount == 1)
        #expect(h.receive("hello") == ["perform(POST /echo)", "cancelTimer"])
        #expect(h.routeCount == 1)
        #expect(h.jobs.first?.request.body == Array("hello".utf8))
    }

    @Test(
        "a body over the route's limit is refused with 413 in the route's shape, and the connection lingers then closes"
    )
    func bodyTooLarge() {
        var h = MachineHarness()
        h.send(.opened)
        let actions = h.receive("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 20\r\n\r\n")
        #expect(actions.contains("write"))
        #expect(actions.contains("interest(read: false, write: false)"))
        let (written, after) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 413 "))
        #expect(written.contains("Connection: close"))
        #expect(after == ["shutdownWrite", "interest(read: true, write: false)", "timer(+2000000000)"])
        // Bytes that arrive while lingering are drained, never parsed.
        #expect(h.receive(get).isEmpty)
        h.advance(seconds: 2)
        #expect(h.send(.timerFired) == ["close"])
    }

    @Test("pipelined requests are answered in request order, whatever order the responder finishes in")
    func pipelineOrder() {
        var h = MachineHarness()
        h.send(.opened)
        let actions = h.receive(getPath("/a") + getPath("/b") + getPath("/c"))
        #expect(
            actions.filter { $0.hasPrefix("perform") } == ["perform(GET /a)", "perform(GET /b)", "perform(GET /c)"])
        #expect(h.complete("/c", body: "C").isEmpty)
        #expect(h.complete("/b", body: "B").isEmpty)
        #expect(h.complete("/a", body: "A") == ["write"])
        let (written, _) = h.writeAll()
        #expect(MachineHarness.statusLines(written).count == 3)
        let bodies = written.components(separatedBy: "\r\n\r\n").dropFirst().map { $0.prefix(1) }
        #expect(bodies == ["A", "B", "C"])
    }

    @Test("an answer given at once is written in the same turn with no job; behind a deferred one it waits its turn")
    func answeredAtOnce() {
        var h = MachineHarness(answersAtOnce: true)
        h.send(.opened)
        #expect(h.receive(get) == ["write"])
        #expect(MachineHarness.statusLines(h.writeAll().written) == ["HTTP/1.1 200"])
        #expect(h.jobs.isEmpty)
        let actions = h.receive(getPath("/slow") + get + getPath("/nowhere"))
        #expect(actions.filter { $0.hasPrefix("perform") } == ["perform(GET /slow)"])
        #expect(!actions.contains("write"))
        #expect(h.complete("/slow", body: "S") == ["write"])
        let written = h.writeAll().written
        #expect(MachineHarness.statusLines(written) == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 404"])
        #expect(written.components(separatedBy: "\r\n\r\n")[1].hasPrefix("S"))
        #expect(h.routeCount == 4)
    }

    @Test("an answer written restarts the idle timeout: a keep-alive client of answers given at once is not cut off")
    func idleRestartsFromTheWrite() {
        var h = MachineHarness(answersAtOnce: true)
        #expect(h.send(.opened) == [idleTimer])
        for _ in 0..<3 {
            h.advance(seconds: 20)
            #expect(h.send(.timerFired).isEmpty)
            #expect(h.receive(get) == ["write"])
            #expect(h.writeAll().actions == [idleTimer], "idle counts from the answer's write")
        }
        h.advance(seconds: 29)
        #expect(h.send(.timerFired).isEmpty, "60 s after the connection opened, 29 s after the last answer")
        h.advance(seconds: 1)
        #expect(h.send(.timerFired) == ["close"])
    }

    @Test(
        "an answer a starved turn took 36 s to encode: its write and idle timeouts count from after the encoding",
        arguments: [false, true])
    func answerEncodedInASlowTurn(answersAtOnce: Bool) {
        var h = MachineHarness(answersAtOnce: answersAtOnce)
        h.send(.opened)
        let start = h.now
        // The turn that gives the answer starts at `start`, and encoding it takes until start + 36 s: the loop's clock
        // says so, while the turn's events (the writes too) all carry `start`.
        h.loopClock.nanoseconds.store(start + 36 * MachineHarness.second, ordering: .relaxed)
        if answersAtOnce {
            h.receive(get)
            _ = h.writeAll()
            h.advance(seconds: 36)
        } else {
            h.receive(getPath("/big"))
            h.complete("/big", body: String(repeating: "x", count: 1000))
            _ = h.writePartly(100)  // the socket blocks: the write timeout runs
            h.advance(seconds: 36)
            #expect(h.send(.timerFired).isEmpty, "the write timeout counts from the encoding, not the turn's start")
            h.send(.writable)
            _ = h.writeAll()
        }
        h.advance(seconds: 29)
        #expect(h.send(.timerFired).isEmpty, "idle counts from the answer, not from the turn's start")
        h.advance(seconds: 1)
        #expect(h.send(.timerFired) == ["close"])
    }

    @Test("every request is routed once, at its head, whether or not it repeats the last one's method and path")
    func routedOncePerRequest() {
        var h = MachineHarness(answersAtOnce: true)
        h.send(.opened)
        _ = h.receive(get + get + "HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n" + getPath("/nowhere") + get + get)
        #expect(
            MachineHarness.statusLines(h.writeAll().written) == Array(repeating: "HTTP/1.1 200", count: 3)
                + ["HTTP/1.1 404", "HTTP/1.1 200", "HTTP/1.1 200"])
        #expect(h.routeCount == 6)  // no route is taken from an earlier request
    }

    @Test("at the pipeline limit reading pauses, and resumes once an answer is written")
    func pipelineLimit() {
        var h = MachineHarness { $0.maxPipelinedRequests = 2 }
        h.send(.opened)
        let actions = h.receive(getPath("/a") + getPath("/b") + getPath("/c"))
        #expect(actions.filter { $0.hasPrefix("perform") }.count == 2)
        #expect(actions.contains("interest(read: false, write: false)"))
        // Answering /a frees a place: /c is taken, and with two in flight again reading stays paused.
        let afterA = h.complete("/a")
        #expect(afterA.contains("perform(GET /c)"))
        #expect(!afterA.contains("interest(read: true, write: false)"))
        _ = h.writeAll()
        #expect(h.complete("/b").contains("interest(read: true, write: false)"))
    }

    @Test("an answer built for longer than the write timeout: no timer meanwhile; the write timeout starts on a block")
    func slowAnswerThenBlocked() {
        // Issue 67: a doubling-echoes answer built for over 30 s on a starved server was cut off as soon as its
        // write blocked. The machine is not the one that closes it (this test); the search goes on below it.
        let post = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello"
        for (request, target) in [(getPath("/a"), "/a"), (post, "/echo")] {
            var h = MachineHarness()
            h.send(.opened)
            #expect(h.receive(request).last == "cancelTimer", "no timeout while the answer is built")
            h.advance(seconds: 40)
            #expect(h.send(.timerFired).isEmpty)
            h.complete(target, body: String(repeating: "x", count: 1000))
            #expect(h.writePartly(100).actions.contains(writeTimer))
            h.advance(seconds: 1)
            #expect(!h.send(.timerFired).contains("close"), "a slow answer is still an answer")
            #expect(h.send(.writable).contains("write"))
            #expect(h.writeAll().actions == [idleTimer])
            h.advance(seconds: 29)
            #expect(h.send(.timerFired).isEmpty, "kept alive until the idle timeout")
        }
    }

    @Test("write blocked mid-pipeline: parsing and reading pause, the write timeout runs and restarts on progress")
    func writeBlockedMidPipeline() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive(getPath("/a"))
        h.complete("/a", body: String(repeating: "x", count: 1000))
        let (_, blocked) = h.writePartly(100)
        #expect(blocked == ["interest(read: false, write: true)", writeTimer])  // no second write while blocked
        // Another pipelined request arrives (already read): it waits until the socket takes output.
        #expect(h.receive(getPath("/b")).isEmpty)
        #expect(h.jobs.isEmpty)
        h.advance(seconds: 20)
        #expect(h.send(.timerFired).isEmpty)  // not yet expired
        #expect(h.send(.writable) == ["write", "interest(read: true, write: false)"])
        let (_, again) = h.writePartly(100)  // progress at t+20 s restarts the clock
        #expect(again.contains("interest(read: false, write: true)"))
        h.advance(seconds: 29)
        #expect(h.send(.timerFired).isEmpty)
        h.send(.writable)
        let (_, drained) = h.writeAll()
        #expect(drained.contains("perform(GET /b)"))
    }

    @Test("a write blocked past the write timeout closes the connection")
    func writeTimeout() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive(get)
        h.complete("/hello", body: String(repeating: "x", count: 1000))
        _ = h.writePartly(10)
        h.advance(seconds: 30)
        #expect(h.send(.timerFired) == ["close"])
    }

    @Test("a timer firing while a deferred response is pending does nothing; the late response is still written")
    func timerDuringDeferredResponse() {
        var h = MachineHarness()
        h.send(.opened)
        #expect(h.receive(get).contains("cancelTimer"))
        h.advance(seconds: 3600)
        #expect(h.send(.timerFired).isEmpty)
        #expect(h.complete("/hello") == ["write"])
        #expect(h.writeAll().written.hasPrefix("HTTP/1.1 200"))
    }

    @Test("idle past the idle timeout: closed without a word")
    func idleTimeout() {
        var h = MachineHarness()
        h.send(.opened)
        h.advance(seconds: 29)
        #expect(h.send(.timerFired).isEmpty)
        h.advance(seconds: 1)
        #expect(h.send(.timerFired) == ["close"])
    }

    @Test("a request head not finished within the header timeout gets 408, written best effort, then close")
    func headerTimeout() {
        var h = MachineHarness()
        h.send(.opened)
        #expect(h.receive("GET /hello HTTP/1.1\r\nHost:") == [headerTimer])
        h.advance(seconds: 5)
        #expect(h.receive(" t\r\n").isEmpty)  // more bytes of the same request: the clock keeps running
        h.advance(seconds: 5)
        #expect(h.send(.timerFired) == ["write", "interest(read: false, write: false)", "cancelTimer"])
        let written = h.machine.machine.output.withUnsentBytes { String(decoding: $0, as: UTF8.self) }
        #expect(written.hasPrefix("HTTP/1.1 408 "))
        #expect(h.send(.writeBlocked) == ["close"])
    }

    @Test("shutdown while idle closes at once")
    func shutdownIdle() {
        var h = MachineHarness()
        h.send(.opened)
        #expect(h.send(.shutdown) == ["close"])
    }

    @Test("shutdown with a request in flight: its response says Connection: close and the connection ends after it")
    func shutdownInFlight() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive(get)
        #expect(h.send(.shutdown).isEmpty)
        h.complete("/hello")
        let (written, after) = h.writeAll()
        #expect(written.contains("Connection: close"))
        #expect(after.first == "shutdownWrite")
        #expect(h.send(.readEOF) == ["close"])
    }

    @Test(
        "shutdown with a half-read request: the request is finished, answered with Connection: close (later or at once), then closed",
        arguments: [false, true])
    func shutdownHalfRead(answersAtOnce: Bool) {
        var h = MachineHarness(answersAtOnce: answersAtOnce)
        h.send(.opened)
        h.receive("GET /hello HTTP/1.1\r\nHo")
        #expect(h.send(.shutdown).isEmpty)
        #expect(h.receive("st: t\r\n\r\n").contains(answersAtOnce ? "write" : "perform(GET /hello)"))
        if !answersAtOnce { h.complete("/hello") }
        let (written, after) = h.writeAll()
        #expect(written.contains("Connection: close"))
        #expect(after.first == "shutdownWrite")
    }

    @Test("a malformed request gets 400 and Connection: close; pipelined requests before it are still answered first")
    func malformedAfterGood() {
        var h = MachineHarness()
        h.send(.opened)
        let actions = h.receive(getPath("/a") + "GET / HTTP/1.1\r\nBad Header: x\r\n\r\n")
        #expect(actions.contains("perform(GET /a)"))
        #expect(!actions.contains("write"))  // the 400 waits for /a's answer
        h.complete("/a")
        let (written, after) = h.writeAll()
        #expect(MachineHarness.statusLines(written) == ["HTTP/1.1 200", "HTTP/1.1 400"])
        #expect(after.first == "shutdownWrite")
    }

    @Test("over the connection cap: 503 at open, then linger and close")
    func refusing() {
        var h = MachineHarness(refusing: true)
        let actions = h.send(.opened)
        #expect(actions.contains("write"))
        let (written, after) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 503 "))
        #expect(after.first == "shutdownWrite")
        #expect(h.send(.readEOF) == ["close"])
    }

    @Test("the peer half-closes after pipelining: every answer is still written, then the connection closes")
    func halfCloseAfterPipelining() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive(getPath("/a") + getPath("/b"))
        #expect(h.send(.readEOF).contains("interest(read: false, write: false)"))
        h.complete("/a")
        h.complete("/b")
        let (written, after) = h.writeAll()
        #expect(MachineHarness.statusLines(written).count == 2)
        #expect(after == ["close"])
    }

    @Test("end of input with nothing pending closes at once; a reset closes whatever is pending")
    func eofAndReset() {
        var idle = MachineHarness()
        idle.send(.opened)
        #expect(idle.send(.readEOF) == ["close"])
        var busy = MachineHarness()
        busy.send(.opened)
        busy.receive(get)
        #expect(busy.send(.reset) == ["close"])
        #expect(busy.complete("/hello").isEmpty)  // a completion after close is ignored
    }

    @Test(
        "Connection: close ends the connection after its response (later or at once); bytes after it are not parsed",
        arguments: [false, true])
    func connectionClose(answersAtOnce: Bool) {
        var h = MachineHarness(answersAtOnce: answersAtOnce)
        h.send(.opened)
        let actions = h.receive("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" + getPath("/b"))
        #expect(actions.filter { $0.hasPrefix("perform") } == (answersAtOnce ? [] : ["perform(GET /hello)"]))
        #expect(actions.contains("interest(read: false, write: false)"))
        if !answersAtOnce { h.complete("/hello") }
        let (written, after) = h.writeAll()
        #expect(MachineHarness.statusLines(written) == ["HTTP/1.1 200"])
        #expect(written.contains("Connection: close"))
        #expect(after.first == "shutdownWrite")
    }

    @Test("Expect: 100-continue gets 100 Continue before the final response")
    func expectContinue() {
        var h = MachineHarness()
        h.send(.opened)
        #expect(
            h.receive("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
                .contains("write"))
        #expect(h.writeAll().written == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(h.receive("hi").contains("perform(POST /echo)"))
    }

    @Test("a client X-Request-Id is kept when sane; otherwise the loop makes one")
    func requestIDs() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("GET /a HTTP/1.1\r\nHost: t\r\nX-Request-Id: abc-123\r\n\r\n")
        h.receive("GET /b HTTP/1.1\r\nHost: t\r\nX-Request-Id: bad id\r\n\r\n")
        #expect(h.jobs.map(\.request.requestID) == ["abc-123", "abcdef01"])
    }
}
