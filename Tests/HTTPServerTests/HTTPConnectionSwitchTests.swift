import HTTP1
import Testing

@testable import HTTPServer

@Suite("HTTP connection state machine: switching protocols (101), fed event by event")
struct HTTPConnectionSwitchTests {
    @Test("the 101 head goes out first; the bytes read with the request, and all after, are the new protocol's")
    func switches() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("GET /upgrade HTTP/1.1\r\nHost: t\r\n\r\nEARLY")
        let (written, _) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\n"))
        #expect(written.contains("\r\nConnection: Upgrade\r\n\r\necho:EARLY"))
        #expect(!written.contains("Content-Length") && !written.contains("Connection: close"))
        h.receive("GET / HTTP/1.1\r\n\r\n")
        #expect(h.writeAll().written == "GET / HTTP/1.1\r\n\r\n")
        #expect(h.jobs.isEmpty)
    }

    @Test("fed one byte at a time, the switch happens once and no byte after the request is parsed as HTTP")
    func byteByByte() {
        var h = MachineHarness()
        h.send(.opened)
        var written = ""
        for byte in "GET /upgrade HTTP/1.1\r\nHost: t\r\n\r\nxy" {
            h.receive(String(byte))
            written += h.writeAll().written
        }
        #expect(written.hasPrefix("HTTP/1.1 101 "))
        #expect(written.hasSuffix("\r\n\r\necho:xy"))
    }

    @Test("an upgrade behind an unanswered request is answered 503, in order, and the connection stays HTTP")
    func pipelined() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /upgrade HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(h.jobs.count == 1)
        h.complete("/slow")
        let (written, _) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(written.contains("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(!written.contains("101"))
        h.receive("GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(h.jobs.map(\.request.target) == ["/next"])
    }

    @Test("a switch decided later: nothing is written or parsed meanwhile; a refusal is plain HTTP and never a 101")
    func laterRefusal() {
        var h = MachineHarness()
        h.send(.opened)
        let actions = h.receive("GET /upgrade-later HTTP/1.1\r\nHost: t\r\n\r\nGET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(actions.contains("decideUpgrade(/upgrade-later)"))
        #expect(actions.contains("interest(read: false, write: false)"), "reads nothing while deciding")
        #expect(h.jobs.isEmpty, "the request after it is not parsed before the decision")
        #expect(!h.machine.hasUnsentOutput)
        var refusal = HTTPResponse.json(.unauthorized, #"{"error":"unauthorized"}"#)
        refusal.headers.add("WWW-Authenticate", "Bearer")
        h.decide(.respond(refusal))
        let (written, _) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
        #expect(written.contains("WWW-Authenticate: Bearer\r\n"))
        #expect(!written.contains("101"))
        #expect(h.jobs.map(\.request.target) == ["/next"], "then the connection stays HTTP")
    }

    @Test("a switch decided later: the 101 goes out at the decision and the bytes after the request are handed over")
    func laterAccept() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("GET /upgrade-later HTTP/1.1\r\nHost: t\r\n\r\nEARLY")
        #expect(!h.machine.hasUnsentOutput)
        h.decide(.upgrade(CountingResponder.echoUpgrade))
        let (written, _) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\n"))
        #expect(written.hasSuffix("\r\n\r\necho:EARLY"))
        h.receive("more")
        #expect(h.writeAll().written == "more")
    }

    @Test("a switch decided during shutdown is answered 503 and the connection closes, with no 101")
    func laterShutdown() {
        var h = MachineHarness()
        h.send(.opened)
        h.receive("GET /upgrade-later HTTP/1.1\r\nHost: t\r\n\r\n")
        h.send(.shutdown)
        h.decide(.upgrade(CountingResponder.echoUpgrade))
        let (written, actions) = h.writeAll()
        #expect(written.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(written.contains("Connection: close\r\n"))
        #expect(!written.contains("101"))
        #expect(actions.contains("shutdownWrite") || actions.contains("close"))
    }
}
