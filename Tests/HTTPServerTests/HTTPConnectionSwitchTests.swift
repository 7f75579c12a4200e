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
}
