import Glibc

/// Drives one accepted socket: turns readiness, timers and completions into events for the
/// protocol's state machine and carries out the actions it returns. All I/O of a connection is here;
/// all of its rules are in the machine.
///
/// `@unchecked Sendable`: every field is used only on `loop`; completions from other threads hop
/// onto the loop (`EventLoop.execute`) before touching it.
final class StreamConnection: LoopRegistrant, @unchecked Sendable {
    typealias Event = ConnectionEvent
    typealias Action = ConnectionAction

    /// Reads per readiness report before other sockets get their turn.
    static var readsPerTurn: Int { 4 }

    let fd: Int32
    let owner: ObjectIdentifier
    let loop: EventLoop
    private let service: any StreamService
    /// The protocol's rules for this connection; used on the loop only.
    private var machine: any ConnectionStateMachine
    private let onClose: () -> Void

    var deadline: UInt64?
    var timerEntry: UInt64?
    private var interest: UInt32 = Epoll.readable
    private var closed = false
    // The event and action lists are used on the loop only, and no access to them overlaps another: the machine
    // calls nothing back, `execute` never re-enters `apply`, and events that arrive during a turn (inline
    // completions) are queued and handled after the current event's actions. So the runtime's exclusivity checks
    // are off for them (two each per request; see docs/performance.md, "Hot path").
    /// Events that arrived while a turn runs (inline completions), handled before the turn ends.
    @exclusivity(unchecked) private var queued: [Event] = []
    @exclusivity(unchecked) private var actions: [Action] = []
    private var inTurn = false
    private var needsWrite = false

    init(
        fd: Int32, owner: ObjectIdentifier, loop: EventLoop, service: any StreamService,
        machine: any ConnectionStateMachine,
        onClose: @escaping () -> Void
    ) {
        self.fd = fd
        self.owner = owner
        self.loop = loop
        self.service = service
        self.machine = machine
        self.onClose = onClose
    }

    /// Registers with the loop and opens the machine. Call on the loop.
    func start() {
        do {
            try loop.register(self, interest: interest)
        } catch {
            closeSocket()
            return
        }
        turn(.opened)
    }

    // MARK: - Loop callbacks

    func ready(_ events: UInt32) {
        guard !closed else { return }
        if events & Epoll.writable != 0 {
            turn(.writable, at: loop.wokeAt)
        }
        if events & Epoll.readable != 0 && interest & Epoll.readable != 0 {
            readAvailable()
        } else if events & Epoll.hangUp != 0 && !closed {
            // Reported even while reading is paused, and level-triggered it would be reported forever.
            turn(.reset, at: loop.wokeAt)
        }
    }

    func timerFired() {
        guard !closed else { return }
        deadline = nil
        turn(.timerFired, at: loop.wokeAt)
    }

    func beginShutdown() {
        turn(.shutdown)
    }

    func forceClose() {
        closeSocket()
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        let now = loop.wokeAt  // called for readiness only
        for _ in 0..<Self.readsPerTurn {
            guard !closed, interest & Epoll.readable != 0 else { return }
            let count: Int?
            do {
                count = try SystemCall.nonBlocking("recv") { Glibc.recv(fd, buffer.baseAddress, buffer.count, 0) }
            } catch {
                turn(.reset, at: now)
                return
            }
            guard let count else { return }
            if count == 0 {
                turn(.readEOF, at: now)
                return
            }
            turn(.bytesRead(UnsafeRawBufferPointer(rebasing: buffer[0..<count])), at: now)
            if count < buffer.count { return }
        }
    }

    // MARK: - Turns

    /// Hands `event` to the machine and carries out the actions, then any events those caused, then
    /// one write of everything that became ready. `now`: the loop's wake-up time for readiness and timer events
    /// (``EventLoop/wokeAt``); read from the clock when nil (completions, start, shutdown).
    private func turn(_ event: Event, at now: UInt64? = nil) {
        guard !closed else { return }
        if inTurn {
            queued.append(event)
            return
        }
        inTurn = true
        run(event, now: now ?? loop.clock(), machine: &machine)
        queued.empty()
        inTurn = false
    }

    /// The turn itself, with the stored machine opened once, rather than its existential box projected and checked
    /// for uniqueness at every mutating access.
    private func run<Machine: ConnectionStateMachine>(_ event: Event, now: UInt64, machine: inout Machine) {
        apply(event, now: now, machine: &machine)
        var next = 0
        while !closed {
            if next < queued.count {
                let event = queued[next]
                next += 1
                apply(event, now: now, machine: &machine)
            } else if needsWrite {
                needsWrite = false
                writeOutput(now: now, machine: &machine)
            } else {
                break
            }
        }
    }

    private func apply<Machine: ConnectionStateMachine>(_ event: Event, now: UInt64, machine: inout Machine) {
        guard !closed else { return }
        actions.empty()
        machine.handle(event, now: now, into: &actions)
        for action in actions {
            guard !closed else { return }
            execute(action)
        }
    }

    private func execute(_ action: Action) {
        switch action {
        case .write:
            needsWrite = true
        case .setInterest(let read, let write):
            let wanted = (read ? Epoll.readable : 0) | (write ? Epoll.writable : 0)
            guard wanted != interest else { return }
            do {
                try loop.modify(fd, interest: wanted)
                interest = wanted
            } catch {
                queued.append(.reset)
            }
        case .armTimer(let deadline):
            self.deadline = deadline
            loop.scheduleTimer(for: self)
        case .cancelTimer:
            deadline = nil
        case .perform(let job):
            let loop = self.loop
            service.perform(job, on: loop) { [self] completion in
                if loop.inLoop {
                    turn(.completed(completion))
                } else {
                    loop.execute { self.turn(.completed(completion)) }
                }
            }
        case .shutdownWrite:
            _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        case .close:
            closeSocket()
        }
    }

    /// Writes the machine's output until it is gone or the socket blocks.
    private func writeOutput<Machine: ConnectionStateMachine>(now: UInt64, machine: inout Machine) {
        while !closed {
            switch Self.sendUnsent(&machine, fd: fd) {
            case .nothing:
                return
            case .sent(let count):
                apply(.wrote(count), now: now, machine: &machine)
            case .blocked:
                apply(.writeBlocked, now: now, machine: &machine)
                return
            case .failed:
                apply(.reset, now: now, machine: &machine)
                return
            }
        }
    }

    private enum SendResult {
        case nothing
        case sent(Int)
        case blocked, failed
    }

    /// One `send` of the machine's unsent output, the machine borrowed in place.
    private static func sendUnsent<Machine: ConnectionStateMachine>(_ machine: inout Machine, fd: Int32)
        -> SendResult
    {
        guard machine.hasUnsentOutput else { return .nothing }
        do {
            let sent = try machine.withUnsentOutput { bytes in
                try SystemCall.nonBlocking("send") {
                    send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                }
            }
            return sent.map(SendResult.sent) ?? .blocked
        } catch {
            return .failed
        }
    }

    private func closeSocket() {
        guard !closed else { return }
        closed = true
        deadline = nil
        loop.deregister(self)
        onClose()  // before the descriptor closes, so a peer that sees the close also sees the count drop
        SystemCall.close(fd)
    }
}

extension Array {
    /// Removes every element and keeps the storage, element by element: `removeAll(keepingCapacity: true)`
    /// replaces the whole range in general, which costs more for the few events and actions of a turn.
    fileprivate mutating func empty() {
        while popLast() != nil {}
    }
}
