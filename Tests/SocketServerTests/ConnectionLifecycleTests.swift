import Testing

@testable import SocketServer

@Suite("The connection lifecycle every protocol's machine shares")
struct ConnectionLifecycleTests {
    private func describe(_ actions: [ConnectionAction]) -> [String] {
        actions.map { action in
            switch action {
            case .write: return "write"
            case .setInterest(let read, let write): return "interest(read: \(read), write: \(write))"
            case .armTimer(let deadline): return "timer(\(deadline))"
            case .cancelTimer: return "cancelTimer"
            case .perform: return "perform"
            case .shutdownWrite: return "shutdownWrite"
            case .close: return "close"
            }
        }
    }

    @Test("the last output written: our side is shut, the peer's bytes drained until the deadline, then closed")
    func lingers() {
        var lifecycle = ConnectionLifecycle()
        var actions: [ConnectionAction] = []
        lifecycle.output.append(Array("bye".utf8))
        lifecycle.closeAfterOutput()
        lifecycle.finishTurn(after: .opened, read: false, deadline: 50, into: &actions)
        #expect(describe(actions) == ["write", "interest(read: false, write: false)", "timer(50)"])
        actions = []
        let drained = lifecycle.didWrite(3)
        #expect(drained)
        lifecycle.linger(now: 100, into: &actions)
        let until = 100 + ConnectionLifecycle.lingerNanoseconds
        #expect(lifecycle.stage == .lingering(until: until) && lifecycle.isLingering)
        lifecycle.finishTurn(after: .wrote(3), read: false, deadline: 7, into: &actions)
        #expect(describe(actions) == ["shutdownWrite", "interest(read: true, write: false)", "timer(\(until))"])
        actions = []
        let early = lifecycle.lingerTimerFired(now: until - 1, into: &actions)
        #expect(early && actions.isEmpty && !lifecycle.isClosed)
        let due = lifecycle.lingerTimerFired(now: until, into: &actions)
        #expect(due && lifecycle.isClosed)
        #expect(describe(actions) == ["close"])
    }

    @Test("a peer that closed first is not lingered for; a lingering one that closes is closed at once")
    func peerCloses() {
        var closedFirst = ConnectionLifecycle()
        var actions: [ConnectionAction] = []
        let closedAtOnce = closedFirst.peerDidClose(into: &actions)
        #expect(!closedAtOnce)
        closedFirst.closeAfterOutput()
        closedFirst.linger(now: 0, into: &actions)
        #expect(closedFirst.isClosed && describe(actions) == ["close"])
        var lingering = ConnectionLifecycle()
        actions = []
        lingering.closeAfterOutput()
        lingering.linger(now: 0, into: &actions)
        let closed = lingering.peerDidClose(into: &actions)
        #expect(closed && lingering.isClosed)
        #expect(describe(actions) == ["shutdownWrite", "close"])
    }

    @Test("back-pressure: no input while the socket is blocked or unsent output is above the high-water mark")
    func backPressure() {
        var lifecycle = ConnectionLifecycle()
        #expect(lifecycle.takesInput)
        lifecycle.output.append([UInt8](repeating: 0, count: ConnectionLifecycle.outputHighWater))
        #expect(!lifecycle.takesInput)
        let drained = lifecycle.didWrite(1)
        #expect(!drained && lifecycle.takesInput)
        let blocked = lifecycle.didBlock()
        let blockedAgain = lifecycle.didBlock()
        #expect(blocked && !blockedAgain)
        #expect(!lifecycle.takesInput)
        var actions: [ConnectionAction] = []
        lifecycle.finishTurn(after: .writeBlocked, read: true, deadline: nil, into: &actions)
        #expect(describe(actions) == ["interest(read: true, write: true)"])  // no write asked while blocked
        lifecycle.becameWritable()
        actions = []
        lifecycle.finishTurn(after: .writable, read: true, deadline: nil, into: &actions)
        #expect(describe(actions) == ["write", "interest(read: true, write: false)"])
    }

    @Test("abandoning: the last output goes out once, nothing is read and no deadline runs")
    func abandons() {
        var lifecycle = ConnectionLifecycle()
        var actions: [ConnectionAction] = []
        lifecycle.abandon(after: Array("408".utf8))
        lifecycle.finishTurn(after: .timerFired, read: true, deadline: 9, into: &actions)
        #expect(lifecycle.stage == .abandoning)
        #expect(describe(actions) == ["write", "interest(read: false, write: false)"])
    }
}
