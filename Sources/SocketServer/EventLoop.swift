import CEpoll
import Dispatch
import Foundation
import Glibc
import Synchronization

/// One event loop: an epoll set for reads and writes of its sockets, a timer heap, and a serial
/// Dispatch queue that every piece of its state is confined to.
///
/// A dedicated thread blocks in `epoll_wait` (its timeout is the earliest timer, at most
/// `pollInterval`) and handles each batch of ready sockets and due timers inside `queue.sync`, so
/// the fast path runs on that thread with no hop, while completions from other threads
/// (`execute`) are serialized with it by the queue. Work that arms a timer from another thread is
/// noticed within one `pollInterval`.
///
/// Why not a `DispatchSourceRead` per connection: libdispatch re-arms the socket with two `epoll_ctl`, an
/// `ioctl(FIONREAD)` and a thread wake-up around every handler run, which made a `GET /healthz` cost close to
/// twice its CPU with this loop when it replaced them. The figures are in docs/performance.md.
///
/// `@unchecked Sendable`: every mutable field is touched only on `queue` (directly by the loop
/// thread inside `queue.sync`, or by blocks sent with `execute`); `stopped` is atomic.
public final class EventLoop: @unchecked Sendable {
    private static let key = DispatchSpecificKey<ObjectIdentifier>()
    /// The loop itself, for ``current``.
    static let referenceKey = DispatchSpecificKey<EventLoopReference>()

    /// The loop's position in its group.
    public let index: Int
    /// The monotonic clock in nanoseconds that every deadline on this loop is measured with.
    public let clock: @Sendable () -> UInt64
    let queue: DispatchQueue
    let epoll: Epoll
    /// Shared by every read on this loop; only one read runs at a time.
    let readBuffer: UnsafeMutableRawBufferPointer
    private let pollInterval: Int32
    /// Where `appendLine` output goes; nil when nothing is gathered.
    private let lineSink: (any LineSink)?
    /// Lines gathered since the last flush; written when full or ``lineFlushInterval`` after the first, its room
    /// kept unless one huge line made it grow far past the limit. Used on the loop only, and the only caller's code
    /// that runs while it is accessed is `appendLine`'s writer, which is given room, not the loop: no access can
    /// overlap another, so unchecked (two checks per logged request; see docs/performance.md, "Hot path").
    @exclusivity(unchecked) private var lines = OutputBuffer(retainedCapacity: EventLoop.lineBufferLimit * 4)
    /// When the oldest line in `lines` was gathered (loop clock).
    private var linesSince: UInt64 = 0
    // Used on the loop's thread only, and every access ends before a callback runs (a registrant is copied
    // out before `ready`, due timers are popped before `timerFired`), so the callbacks' own registrations and
    // timers never overlap one.
    private(set) var registrants = Registrants()
    private var timers = TimerHeap()
    /// Work put off to the next turn (`nextTurn`), in the order given: run at that turn's start, before its ready
    /// sockets. On the loop.
    private var postponed: [() -> Void] = []
    /// Turns begun, counting from 1: what a budget per turn (`HTTPLoopState`'s inline requests) is kept against. On
    /// the loop.
    public private(set) var turnNumber: UInt64 = 0
    /// The turn short work was last counted in (`takeShortWork`), and how much of it that turn has run. On the loop.
    private var shortWorkTurn: UInt64 = 0
    private var shortWorkTaken = 0
    /// The clock as read when the loop last woke from `epoll_wait`: the time of every readiness and timer event of
    /// that wake-up (its work takes microseconds), so that its connections do not each read the clock again. On the
    /// loop.
    private(set) var wokeAt: UInt64 = 0
    private let started = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    /// Turns completed (one per wake-up, not per request).
    private let completedTurns = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)

    init(
        index: Int, clock: @escaping @Sendable () -> UInt64, pollInterval: Duration, lineSink: (any LineSink)?
    ) throws {
        self.index = index
        self.clock = clock
        self.lineSink = lineSink
        gathersLines = lineSink != nil
        epoll = try Epoll()
        let milliseconds =
            pollInterval.components.seconds * 1000
            + pollInterval.components.attoseconds / 1_000_000_000_000_000
        self.pollInterval = Int32(clamping: max(1, milliseconds))
        queue = DispatchQueue(label: "postern.loop-\(index)", qos: .userInitiated)
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        queue.setSpecific(key: EventLoop.key, value: ObjectIdentifier(self))
        queue.setSpecific(key: EventLoop.referenceKey, value: EventLoopReference(loop: self))
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Runs `body` at the start of the loop's next turn, before the sockets that turn finds ready, on the loop's own
    /// thread. For work a turn's budget left over (a connection's next short request), so that the other connections
    /// are polled before it runs. The loop's eventfd is written when the first body is put off, so the next poll
    /// returns at once even when the caller is a completion running on the loop's queue from another thread; no
    /// other thread is woken. Call on the loop.
    public func nextTurn(_ body: @escaping () -> Void) {
        if postponed.isEmpty { epoll.wake() }
        postponed.append(body)
    }

    /// Takes one piece of this turn's short work (an HTTP request of a short route, an IMAP command answered on the
    /// loop): false once the turn has run `limit` of them, whoever asked, so that the loop polls its other connections
    /// before it runs more (the work then waits for a later turn, `nextTurn`). Call on the loop.
    public func takeShortWork(perTurn limit: Int) -> Bool {
        if turnNumber != shortWorkTurn {
            shortWorkTurn = turnNumber
            shortWorkTaken = 0
        }
        guard shortWorkTaken < max(1, limit) else { return false }
        shortWorkTaken += 1
        return true
    }

    /// Whether the caller runs on this loop.
    public var inLoop: Bool {
        DispatchQueue.getSpecific(key: EventLoop.key) == ObjectIdentifier(self)
    }

    /// Runs `body` on this loop, after what is already queued.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        queue.async {
            body()
            self.flushLinesIfDue(now: self.clock())
        }
    }

    // MARK: - Gathered lines (on the loop)

    /// Whether `appendLine` keeps what it is given (a sink is configured). Stored: testing the optional
    /// existential for nil copied it, for every line.
    public let gathersLines: Bool

    /// Most bytes gathered before they are written at once.
    static var lineBufferLimit: Int { 64 * 1024 }
    /// Longest a gathered line waits to be written (nanoseconds).
    public static var lineFlushInterval: UInt64 { 250_000_000 }

    /// Appends complete lines to the loop's buffer, which is written with one call to the sink when it
    /// holds ``lineBufferLimit`` bytes or its oldest line is ``lineFlushInterval`` old, as nginx's
    /// `access_log ... buffer= flush=` does: a busy loop writes hundreds of lines per system call. Nothing
    /// is lost: shutdown and ``flushGatheredLines()`` (SIGUSR1) write what is left. Call on the loop;
    /// nothing is kept without a sink.
    ///
    /// `write` is given room for `maximum` bytes in the buffer itself and returns how many it wrote (more traps);
    /// it must not call back into the loop.
    public func appendLine(atMost maximum: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        guard gathersLines else { return }
        if lines.isEmpty { linesSince = clock() }
        lines.withAppendableRoom(atMost: maximum, write)
        if lines.unsentCount >= Self.lineBufferLimit { flushLines() }
    }

    /// Writes the gathered lines now, from any thread (after what is already queued on the loop).
    public func flushGatheredLines() {
        queue.async { self.flushLines() }
    }

    /// Writes the gathered lines once the oldest has waited ``lineFlushInterval``; reads the clock only when
    /// lines wait (most turns of a server without an access log have none). On the loop.
    ///
    /// `now` may be earlier than `linesSince`: a turn's wake-up time is read before its requests add their
    /// lines. Compared against the deadline, not by subtracting, so that does not wrap into "overdue".
    private func flushLinesIfDue(now: @autoclosure () -> UInt64) {
        guard let lineDeadline, now() >= lineDeadline else { return }
        flushLines()
    }

    /// When the gathered lines must be written; nil when there are none. On the loop.
    private var lineDeadline: UInt64? {
        lines.isEmpty ? nil : linesSince &+ Self.lineFlushInterval
    }

    /// Writes the gathered lines. On the loop.
    func flushLines() {
        guard let lineSink, !lines.isEmpty else { return }
        lines.withUnsentBytes { lineSink.write($0) }
        lines.consume(lines.unsentCount)
    }

    /// Descriptors registered right now (connections and listeners).
    var registrantCount: Int { registrants.count }

    // MARK: - Thread

    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            // Named by the thread itself with prctl, not Foundation's `Thread.name`: set from inside the thread
            // that did not always reach the system thread (in the test suite under load, one loop of two kept
            // Dispatch's "com.apple.root.default-qos", the name `top -H`, `perf` and `/proc` then show).
            _ = postern_name_this_thread("postern-loop-\(index)")
            run()
        }
        thread.start()
    }

    /// Ends the loop thread after its current turn and returns once it has exited.
    func stopAndJoin() {
        guard started.load(ordering: .relaxed), !stopped.exchange(true, ordering: .relaxed) else { return }
        epoll.wake()
        finished.wait()
        queue.sync { flushLines() }
    }

    private func run() {
        var earliest: UInt64? = nil
        while !stopped.load(ordering: .relaxed) {
            let count = epoll.wait(milliseconds: waitMilliseconds(until: earliest))
            // The non-generic `sync`: the overlay's generic one wraps the body in two more closures.
            queue.sync {
                turn(readyCount: count)
                earliest = timers.earliest
                if let lineDeadline { earliest = min(earliest ?? lineDeadline, lineDeadline) }
            }
            completedTurns.add(1, ordering: .relaxed)
        }
        finished.signal()
    }

    /// Returns once the loop has completed a whole turn that began after the call: one that read the clock, the
    /// ready sockets and the due timers after whatever the caller did before it (moved an injected clock, wrote
    /// to a socket). What tests wait for instead of sleeping. The loop must be running.
    public func completedTurnAfterNow() async {
        // The turn under way may have read the clock before the call; the one after it cannot have.
        let wanted = completedTurns.load(ordering: .relaxed) + 2
        while completedTurns.load(ordering: .relaxed) < wanted {
            epoll.wake()
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// How long to wait for the earliest timer, at most `pollInterval`.
    private func waitMilliseconds(until earliest: UInt64?) -> Int32 {
        guard let earliest else { return pollInterval }
        let now = clock()
        guard earliest > now else { return 0 }
        let milliseconds = (earliest - now + 999_999) / 1_000_000
        return Int32(min(UInt64(pollInterval), milliseconds))
    }

    private func turn(readyCount: Int) {
        wokeAt = clock()
        turnNumber &+= 1
        if !postponed.isEmpty { runPostponed() }
        epoll.forEachReady(readyCount) { fd, events in
            if fd == epoll.wakeFD {
                epoll.drainWake()
            } else {
                registrants[fd]?.ready(events)
            }
        }
        runDueTimers()
        flushLinesIfDue(now: wokeAt)
    }

    /// Runs the work put off to this turn; what it puts off again waits for the next one.
    private func runPostponed() {
        let due = postponed
        postponed.removeAll(keepingCapacity: true)
        for body in due { body() }
    }

    // MARK: - Registration and timers (on the loop)

    /// Adds `registrant` to the epoll set with `interest`. Call on the loop.
    func register(_ registrant: any LoopRegistrant, interest: UInt32) throws {
        try epoll.add(registrant.fd, interest: interest)
        registrants.insert(registrant)
    }

    /// Changes what `fd` is watched for. Call on the loop.
    func modify(_ fd: Int32, interest: UInt32) throws {
        try epoll.modify(fd, interest: interest)
    }

    /// Stops watching `registrant`'s descriptor but keeps it registered, so its timer still fires;
    /// `watch` resumes. For a descriptor added with `EPOLLEXCLUSIVE`, which `modify` refuses. On the loop.
    func unwatch(_ registrant: any LoopRegistrant) {
        guard registrants[registrant.fd] === registrant else { return }
        epoll.remove(registrant.fd)
    }

    /// Watches an `unwatch`ed registrant's descriptor again with `interest`. Call on the loop.
    func watch(_ registrant: any LoopRegistrant, interest: UInt32) throws {
        guard registrants[registrant.fd] === registrant else { return }
        try epoll.add(registrant.fd, interest: interest)
    }

    /// Removes `registrant` before its descriptor closes. Call on the loop.
    func deregister(_ registrant: any LoopRegistrant) {
        guard registrants[registrant.fd] === registrant else { return }
        epoll.remove(registrant.fd)
        registrants.remove(registrant.fd)
    }

    /// Makes sure `registrant` is asked about its `deadline` when it comes. Call on the loop after
    /// changing the deadline; cheap when the deadline moved later (the live entry is reused).
    func scheduleTimer(for registrant: any LoopRegistrant) {
        guard let deadline = registrant.deadline else { return }
        if let entry = registrant.timerEntry, entry <= deadline { return }
        registrant.timerEntry = deadline
        timers.push(TimerHeap.Entry(deadline: deadline, fd: registrant.fd))
    }

    private func runDueTimers() {
        let now = wokeAt
        while let entry = timers.popDue(now: now) {
            guard let registrant = registrants[entry.fd], registrant.timerEntry == entry.deadline else { continue }
            registrant.timerEntry = nil
            guard let deadline = registrant.deadline else { continue }
            if deadline <= now {
                registrant.timerFired()
            } else {
                scheduleTimer(for: registrant)
            }
        }
    }

    // MARK: - Shutdown (on the loop)

    /// Asks the registrants of `owner` to finish and close.
    func beginShutdown(owner: ObjectIdentifier) {
        for registrant in registrants.all where registrant.owner == owner { registrant.beginShutdown() }
    }

    /// Closes the registrants of `owner` at once.
    func closeAll(owner: ObjectIdentifier) {
        for registrant in registrants.all where registrant.owner == owner { registrant.forceClose() }
    }
}
