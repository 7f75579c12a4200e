import Testing

@testable import SocketServer

/// The machine that reads a balancer's PROXY header, then serves the connection as the client it names.
@Suite("PROXY protocol machine")
struct ProxyProtocolMachineTests {
    /// Records what it was made for and the events it saw; echoes what it reads.
    final class Made: @unchecked Sendable {
        var peers: [String] = []
        var events: [String] = []
    }

    struct Recorder: ConnectionStateMachine {
        let made: Made
        var output: [UInt8] = []
        var hasUnsentOutput: Bool { !output.isEmpty }
        func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
            try output.withUnsafeBytes(body)
        }
        mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
            switch event {
            case .opened:
                made.events.append("opened")
                output += Array("220 hello\r\n".utf8)
                actions.append(.write)
            case .bytesRead(let bytes):
                made.events.append("read " + String(decoding: bytes, as: UTF8.self))
            default:
                made.events.append("other")
            }
        }
    }

    func machine(_ made: Made) -> ProxyProtocolMachine {
        ProxyProtocolMachine(peer: "10.0.0.9", timeout: 5_000) { peer in
            made.peers.append(peer)
            return Recorder(made: made)
        }
    }

    func feed(_ machine: inout ProxyProtocolMachine, _ text: String, now: UInt64 = 0) -> [ConnectionAction] {
        var actions: [ConnectionAction] = []
        Array(text.utf8).withUnsafeBytes { machine.handle(.bytesRead($0), now: now, into: &actions) }
        return actions
    }

    @Test("nothing is written until the header; then the session opens as the client and gets the bytes after it")
    func header() {
        let made = Made()
        var machine = machine(made)
        var actions: [ConnectionAction] = []
        machine.handle(.opened, now: 100, into: &actions)
        #expect(made.peers.isEmpty)
        #expect(!machine.hasUnsentOutput)
        guard case .armTimer(let deadline)? = actions.last else {
            Issue.record("no timer: \(actions)")
            return
        }
        #expect(deadline == 5_100)
        for byte in "PROXY TCP4 203.0.113.7 10.0.0.2 40000 2525\r".utf8 {
            _ = feed(&machine, String(UnicodeScalar(byte)))
        }
        #expect(made.peers.isEmpty)
        actions = feed(&machine, "\nEHLO x\r\n")
        #expect(made.peers == ["203.0.113.7"])
        #expect(made.events == ["opened", "read EHLO x\r\n"])
        #expect(machine.hasUnsentOutput)
        if case .cancelTimer = actions.first {} else { Issue.record("timer not cancelled first: \(actions)") }
        _ = feed(&machine, "QUIT\r\n")
        #expect(made.events.last == "read QUIT\r\n")
    }

    @Test("a LOCAL or UNKNOWN header serves the balancer itself")
    func local() {
        let made = Made()
        var machine = machine(made)
        _ = feed(&machine, "PROXY UNKNOWN\r\n")
        #expect(made.peers == ["10.0.0.9"])
    }

    @Test("no header, a timeout or an early close ends the connection without a word")
    func refused() {
        for event in ["EHLO x\r\n", "timer", "eof"] {
            let made = Made()
            var machine = machine(made)
            var actions: [ConnectionAction] = []
            machine.handle(.opened, now: 0, into: &actions)
            actions = []
            switch event {
            case "timer": machine.handle(.timerFired, now: 5_000, into: &actions)
            case "eof": machine.handle(.readEOF, now: 1, into: &actions)
            default: actions = feed(&machine, event)
            }
            guard case .close? = actions.last else {
                Issue.record("\(event): not closed: \(actions)")
                continue
            }
            #expect(made.peers.isEmpty)
            #expect(!machine.hasUnsentOutput)
        }
    }
}
