import Testing

@testable import PostgresClient

/// The protocol of waiting for a statement on a non-blocking connection, fed libpq's and the loop's reports by hand.
@Suite("PostgreSQL loop read machine")
struct PostgresLoopReadMachineTests {
    typealias Machine = PostgresLoopReadMachine

    /// Feeds `events` in order, returning each action and the state after it.
    private func run(_ events: [Machine.Event], from start: Machine = Machine()) -> (Machine, [Machine.Action]) {
        var machine = start
        let actions = events.map { machine.handle($0) }
        return (machine, actions)
    }

    @Test("a statement sent whole, answered in one read: flush, watch for reading, consume, collect, idle")
    func oneRoundTrip() {
        let (machine, actions) = run([.sent, .flushed(done: true), .readable, .consumed(busy: false), .taken])
        #expect(actions == [.flush, .watch(writable: false), .consume, .collect, .watch(writable: false)])
        #expect(machine.state == .idle)
    }

    @Test("an answer in several reads: busy after the first consume waits for the next readiness")
    func answerInPieces() {
        let (machine, actions) = run([
            .sent, .flushed(done: true), .readable, .consumed(busy: true), .readable, .consumed(busy: true),
        ])
        #expect(actions == [.flush, .watch(writable: false), .consume, .none, .consume, .none])
        #expect(machine.state == .awaiting)
        let (done, rest) = run([.readable, .consumed(busy: false), .taken], from: machine)
        #expect(rest == [.consume, .collect, .watch(writable: false)])
        #expect(done.state == .idle)
    }

    @Test("a statement libpq could not send at once: watch for writing and reading, flush on writable, then await")
    func partialFlush() {
        let (machine, actions) = run([
            .sent, .flushed(done: false), .writable, .flushed(done: false), .readable, .consumed(busy: true),
            .flushed(done: true),
        ])
        #expect(
            actions == [
                .flush, .watch(writable: true), .flush, .watch(writable: true), .consume, .flush,
                .watch(writable: false),
            ])
        #expect(machine.state == .awaiting)
    }

    @Test("results taken while libpq is busy again before the last go back to awaiting, then finish")
    func partialCollect() {
        let (machine, actions) = run([
            .sent, .flushed(done: true), .readable, .consumed(busy: false), .partial, .readable,
            .consumed(busy: false), .taken,
        ])
        #expect(
            actions == [
                .flush, .watch(writable: false), .consume, .collect, .none, .consume, .collect,
                .watch(writable: false),
            ])
        #expect(machine.state == .idle)
    }

    @Test("lost in any state but broken fails once, and nothing after it acts", arguments: 0...4)
    func lost(after steps: Int) {
        let prefix: [Machine.Event] = Array(
            [.sent, .flushed(done: false), .flushed(done: true), .readable, .consumed(busy: false)].prefix(steps))
        let (machine, _) = run(prefix)
        let (broken, actions) = run([.lost, .lost, .readable, .sent, .timedOut, .taken], from: machine)
        #expect(actions == [.fail, .none, .none, .none, .none, .none])
        #expect(broken.state == .broken)
    }

    @Test("a statement past its time fails; an idle connection's deadline report is ignored")
    func timedOut() {
        let (waiting, _) = run([.sent, .flushed(done: true)])
        let (broken, actions) = run([.timedOut], from: waiting)
        #expect(actions == [.fail])
        #expect(broken.state == .broken)
        let (idle, idleActions) = run([.timedOut])
        #expect(idleActions == [.none])
        #expect(idle.state == .idle)
    }

    @Test("an idle connection that hears the server reads it; what is not a loss leaves it idle")
    func idleReadable() {
        let (machine, actions) = run([.readable, .consumed(busy: false)])
        #expect(actions == [.consume, .none])
        #expect(machine.state == .idle)
        let (lost, lostActions) = run([.readable, .lost])
        #expect(lostActions == [.consume, .fail])
        #expect(lost.state == .broken)
    }

    @Test("a primary doubt raised after the connection began to open breaks it, idle or not (rule 8)", arguments: 0...6)
    func primaryDoubted(after steps: Int) {
        // idle, sending, sending (flushed in part), awaiting, awaiting (input read), result, idle after an answer
        let prefix: [Machine.Event] = Array(
            [.sent, .flushed(done: false), .flushed(done: true), .readable, .consumed(busy: false), .taken]
                .prefix(steps))
        let (machine, _) = run(prefix, from: Machine(openedUnder: 2))
        let (broken, actions) = run(
            [.primaryDoubted(generation: 3), .primaryDoubted(generation: 4), .readable, .sent, .taken], from: machine)
        #expect(actions == [.fail, .none, .none, .none, .none])
        #expect(broken.state == .broken)
    }

    @Test("a primary doubt raised before the connection began to open changes nothing: it was opened after it")
    func primaryDoubtedBefore() {
        let (waiting, _) = run([.sent, .flushed(done: true)], from: Machine(openedUnder: 2))
        let (still, actions) = run(
            [.primaryDoubted(generation: 2), .primaryDoubted(generation: 1), .readable, .consumed(busy: false), .taken],
            from: waiting)
        #expect(actions == [.none, .none, .consume, .collect, .watch(writable: false)])
        #expect(still.state == .idle)
        let (idle, idleActions) = run([.primaryDoubted(generation: 0)])
        #expect(idleActions == [.none])
        #expect(idle.state == .idle)
        let (doubted, doubtedActions) = run([.primaryDoubted(generation: 1)])
        #expect(doubtedActions == [.fail])
        #expect(doubted.state == .broken)
    }

    @Test("reports that arrive after the state moved on are ignored")
    func staleReports() {
        let (machine, actions) = run([.writable, .flushed(done: true), .taken, .partial])
        #expect(actions == [.none, .none, .none, .none])
        #expect(machine.state == .idle)
        let (awaiting, _) = run([.sent, .flushed(done: true)])
        let (still, stale) = run([.writable, .sent, .taken], from: awaiting)
        #expect(stale == [.none, .none, .none])
        #expect(still.state == .awaiting)
    }
}
