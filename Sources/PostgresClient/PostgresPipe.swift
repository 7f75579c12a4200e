import CLibPQ
import Dispatch
import Glibc
import Storage
import Synchronization

/// One read-only PostgreSQL session in libpq's pipeline mode, for reads of one statement (``PostgresDatabase/read(_:)``):
/// the caller sends its statement from its own thread under the pipe's lock (non-blocking: `PQsendQueryPrepared`, a
/// sync point, a flush) and suspends; one reader thread per pipe reads the answers as they come, in order, and resumes
/// each caller with its rows. So a read makes no hop to a connection's queue and keeps no thread waiting for its answer,
/// and the statements of several callers are in flight on the one session at once: PostgreSQL reads them in one
/// wake-up instead of one each (docs/performance.md, 2026-11-27).
///
/// What may go wrong is never the caller's to see, but the pool's to do again: the session is read-only
/// (`default_transaction_read_only`), so a statement that failed here (an error, the session lost, more calls in flight
/// than ``depthLimit``) wrote nothing and ``Outcome/declined`` sends its read to ``PostgresPool``, which runs it again and
/// reports the error in the usual way. A lost session is made again by the reader (once a second while the server is
/// out of reach; reads go to the pool meanwhile), through the same URL and checks as the pool's (a multi-host URL lands
/// on the primary; a standby is refused), so a read here sees every write the pool has committed.
///
/// Bounded like the pool: a read not answered within the timeout resumes its caller with `.unavailable` (its session
/// being read-only, nothing is in doubt), and the session, stuck, is dropped and made again; the reads queued behind it
/// go to the pool. The reader looks at the deadlines each 100 ms while reads are in flight, and each second when idle,
/// so a read may be answered up to that much past the timeout.
final class PostgresPipe: Sendable {
    /// How a read went.
    enum Outcome: Sendable {
        case rows([SQLRow])
        /// Not answered here: the pool runs it (nothing was written).
        case declined
        /// Not answered within the timeout.
        case timedOut
    }

    /// At most this many reads in flight on one pipe; more go to the pool.
    static let depthLimit = 256
    /// Prepared statements kept per session; past it a statement not yet prepared goes to the pool.
    static let statementCacheLimit = 256

    private struct Key: Hashable {
        let sql: String
        let types: [Oid]
    }

    private struct Statement {
        let name: String
        var columns: [String]?
    }

    private struct Call {
        var continuation: CheckedContinuation<Outcome, Never>?
        let deadline: DispatchTime?
        let key: Key
        /// Its statement was prepared in the same segment: forgotten if the call fails.
        let prepares: Bool
        var failed = false
        /// Its statement's rows, still libpq's: made into rows by the reader outside the lock.
        var result: Held?
    }

    /// A `PGresult` with its column names, taken out of the lock to be made into rows (``Reply/outcome()``).
    private struct Held: @unchecked Sendable {
        let pointer: OpaquePointer
        let columns: [String]
    }

    /// What a call's caller is resumed with, once out of the lock.
    private enum Reply: Sendable {
        case declined
        case timedOut
        case rows(Held?)

        /// Builds the rows (and frees the result): outside the pipe's lock, so that senders do not wait for it.
        func outcome() -> Outcome {
            switch self {
            case .declined: return .declined
            case .timedOut: return .timedOut
            case .rows(nil): return .rows([])
            case .rows(let held?):
                defer { PQclear(held.pointer) }
                return .rows(PostgresResult.rows(held.pointer, columns: held.columns))
            }
        }
    }

    private typealias Answered = (CheckedContinuation<Outcome, Never>, Reply)

    /// A libpq session, handed between the reader and the lock: only ever used under the lock, or by the reader alone
    /// (connecting, polling its socket, finishing it).
    private struct Handle: @unchecked Sendable, Equatable {
        let pointer: OpaquePointer
    }

    private struct State {
        /// Nil while the session is being made again.
        var handle: Handle?
        /// The session is lost or stuck: the reader finishes it and makes another; nothing is sent on it.
        var broken = false
        var closed = false
        /// libpq holds output the socket did not take: the reader flushes it when the socket is writable.
        var needsFlush = false
        var statements: [Key: Statement] = [:]
        var prepared = 0
        var calls: [UInt64: Call] = [:]
        /// The calls in the order their answers come.
        var order: [UInt64] = []
        var lastID: UInt64 = 0
        /// Calls answered with their rows (for tests).
        var answered = 0

        /// Marks the session lost: every call in flight is declined (the returned continuations, resumed outside the
        /// lock), and the reader is woken to finish the session.
        mutating func lose() -> [CheckedContinuation<Outcome, Never>] {
            broken = true
            needsFlush = false
            statements.removeAll()
            let waiting = order.compactMap { calls[$0]?.continuation }
            for call in calls.values { if let result = call.result { PQclear(result.pointer) } }
            calls.removeAll()
            order.removeAll()
            if let handle { shutdown(PQsocket(handle.pointer), Int32(SHUT_RDWR)) }
            return waiting
        }
    }

    private let state = Mutex(State())
    private let timeout: Duration?
    /// Used only under `state`'s lock: libpq calls it from inside the calls made there (`PQconsumeInput`,
    /// `PQgetResult`), and the reader installs it before the session is shared.
    nonisolated(unsafe) private let notices = PostgresNotice.Receiver()
    private let stopped = DispatchSemaphore(value: 0)
    /// Wakes the reader from its `poll` when a sender left output libpq could not send (`needsFlush`), so that it
    /// waits for the socket to take it (a pipe: its read end is polled beside the socket).
    private let wake: (read: Int32, write: Int32)

    /// Opens the session at once (throwing as ``PostgresConnection/init(url:applicationName:)`` does) and starts its
    /// reader on a thread named `label`.
    init(url: String, label: String, timeout: Duration?) throws {
        self.timeout = timeout
        let first = Handle(pointer: try Self.open(url: url, notices: notices, timeout: timeout))
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            PQfinish(first.pointer)
            throw StorageError(.unavailable, "cannot make the PostgreSQL read session's wake-up")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = (ends[0], ends[1])
        state.withLock { $0.handle = first }
        DispatchQueue(label: label).async { [self] in read(url: url) }
    }

    /// Runs `sql` with `bindings` on the session and returns its rows, or why not.
    func query(_ sql: String, _ bindings: [SQLValue]) async -> Outcome {
        let deadline = timeout.map { DispatchTime.now() + Self.interval($0) }
        return await withCheckedContinuation { continuation in
            let (sent, lost) = state.withLock { state in send(&state, sql, bindings, continuation, deadline) }
            for waiting in lost { waiting.resume(returning: .declined) }
            if !sent { continuation.resume(returning: .declined) }
        }
    }

    /// Stops the reader and finishes the session; the reads in flight go to the pool. Once: later calls return at once.
    func close() {
        let (first, lost) = state.withLock { state -> (Bool, [CheckedContinuation<Outcome, Never>]) in
            guard !state.closed else { return (false, []) }
            state.closed = true
            return (true, state.lose())
        }
        for waiting in lost { waiting.resume(returning: .declined) }
        if first { stopped.wait() }
    }

    /// How many reads the pipe answered with their rows (for tests).
    var answeredCount: Int { state.withLock { $0.answered } }

    // MARK: - Sending (the caller's thread, under the lock)

    /// Queues the call on the session; false when it was not sent (the caller is declined), with the calls a lost
    /// session declined.
    private func send(
        _ state: inout State, _ sql: String, _ bindings: [SQLValue],
        _ continuation: CheckedContinuation<Outcome, Never>, _ deadline: DispatchTime?
    ) -> (Bool, [CheckedContinuation<Outcome, Never>]) {
        guard !state.closed, !state.broken, let handle = state.handle?.pointer, state.order.count < Self.depthLimit else {
            return (false, [])
        }
        let key = Key(sql: sql, types: bindings.map(PostgresParameters.typeOID))
        var prepares = false
        let name: String
        if let known = state.statements[key] {
            name = known.name
        } else {
            let (numbered, count) = PostgresPlaceholders.numbered(sql)
            guard count == bindings.count, state.statements.count < Self.statementCacheLimit else { return (false, []) }
            state.prepared += 1
            name = "r\(state.prepared)"
            let queued = key.types.withUnsafeBufferPointer { types in
                PQsendPrepare(handle, name, numbered, Int32(count), types.baseAddress)
            }
            guard queued == 1 else { return (false, state.lose()) }
            state.statements[key] = Statement(name: name)
            prepares = true
        }
        let queued = PostgresParameters.withEncoded(bindings) { values, lengths, formats in
            PQsendQueryPrepared(handle, name, Int32(bindings.count), values, lengths, formats, 0)
        }
        guard queued == 1, PQpipelineSync(handle) == 1 else { return (false, state.lose()) }
        state.lastID += 1
        state.calls[state.lastID] = Call(continuation: continuation, deadline: deadline, key: key, prepares: prepares)
        state.order.append(state.lastID)
        // Only the reader clears `needsFlush`: a flush that sent all of this call's output says nothing of what an
        // earlier sender left, and the reader flushes that too on its next pass.
        switch PQflush(handle) {
        case 0:
            return (true, [])
        case 1:
            if !state.needsFlush {
                state.needsFlush = true
                var one: UInt8 = 1
                _ = Glibc.write(wake.write, &one, 1)
            }
            return (true, [])
        default:
            return (true, state.lose())
        }
    }

    // MARK: - Reading (the reader's thread)

    /// The reader: waits on the socket, hands out the answers, expires the reads past their deadline, and makes the
    /// session again when it was lost, until ``close()``.
    private func read(url: String) {
        defer {
            Glibc.close(wake.read)
            Glibc.close(wake.write)
            stopped.signal()
        }
        while true {
            let (handle, closed, busy, flush) = state.withLock { state in
                if state.broken || state.closed, let handle = state.handle {
                    PQfinish(handle.pointer)
                    state.handle = nil
                    state.broken = false
                }
                return (state.handle, state.closed, !state.order.isEmpty, state.needsFlush)
            }
            if closed { return }
            guard let handle else {
                reconnect(url: url)
                continue
            }
            var descriptors = [
                pollfd(fd: PQsocket(handle.pointer), events: Int16(POLLIN) | (flush ? Int16(POLLOUT) : 0), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, busy ? 100 : 1000)
            if descriptors[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = Glibc.read(wake.read, &drained, drained.count)
            }
            var answered: [Answered] = []
            state.withLock { state in
                guard !state.broken, !state.closed, state.handle == handle else { return }
                // Not only when the socket had input: a sender's flush that found the socket full lets libpq read
                // what was waiting into its own buffer (as TLS keeps decrypted bytes in OpenSSL's), where poll never
                // sees it. So every wake-up and every pass while calls are in flight reads libpq's buffer too.
                if ready != 0 || busy || !state.order.isEmpty || state.needsFlush {
                    answered = take(&state, handle.pointer)
                }
                guard !state.broken else { return }
                answered += expire(&state)
            }
            for (continuation, reply) in answered { continuation.resume(returning: reply.outcome()) }
        }
    }

    /// Flushes, reads what arrived and completes the calls whose sync point it reached.
    /// The rows' results are handed out as they are (``Reply``), made into rows after the lock.
    private func take(_ state: inout State, _ handle: OpaquePointer) -> [Answered] {
        var answered: [Answered] = []
        func lose() -> [Answered] {
            answered + state.lose().map { ($0, .declined) }
        }
        if state.needsFlush {
            let flushed = PQflush(handle)
            guard flushed >= 0 else { return lose() }
            state.needsFlush = flushed == 1
        }
        guard PQconsumeInput(handle) != 0, PQstatus(handle) == CONNECTION_OK else { return lose() }
        var ended = false  // a NULL result: the end of one statement's results, or (twice running) of all
        while PQisBusy(handle) == 0 {
            guard let result = PQgetResult(handle) else {
                if ended { break }
                ended = true
                continue
            }
            ended = false
            guard let id = state.order.first, var call = state.calls[id] else {
                PQclear(result)
                return lose()
            }
            switch PQresultStatus(result) {
            case PGRES_PIPELINE_SYNC:
                PQclear(result)
                state.order.removeFirst()
                state.calls[id] = nil
                if notices.takeInDoubt() { call.failed = true }
                if call.failed && call.prepares { state.statements[call.key] = nil }
                if !call.failed { state.answered += 1 }
                if call.failed || call.continuation == nil, let held = call.result.take() { PQclear(held.pointer) }
                if let continuation = call.continuation {
                    answered.append((continuation, call.failed ? .declined : .rows(call.result)))
                }
                continue
            case PGRES_TUPLES_OK:
                let known = state.statements[call.key]?.columns.flatMap { $0.count == Int(PQnfields(result)) ? $0 : nil }
                let columns = known ?? PostgresResult.columns(result)
                state.statements[call.key]?.columns = columns
                if let earlier = call.result { PQclear(earlier.pointer) }
                call.result = Held(pointer: result, columns: columns)
            case PGRES_COMMAND_OK:
                PQclear(result)
            default:
                PQclear(result)
                call.failed = true
            }
            state.calls[id] = call
        }
        guard PQstatus(handle) == CONNECTION_OK else { return lose() }
        return answered
    }

    /// Times out the calls past their deadline; the session, stuck, is lost with them (the others go to the pool).
    private func expire(_ state: inout State) -> [Answered] {
        let now = DispatchTime.now()
        let due = state.order.filter { id in state.calls[id]?.deadline.map { $0 <= now } ?? false }
        guard !due.isEmpty else { return [] }
        var answered: [Answered] = []
        for id in due {
            if let continuation = state.calls[id]?.continuation.take() { answered.append((continuation, .timedOut)) }
        }
        return answered + state.lose().map { ($0, .declined) }
    }

    /// Makes the session again, or waits a second (in steps, to notice ``close()``) when the server is out of reach.
    private func reconnect(url: String) {
        if let fresh = (try? Self.open(url: url, notices: notices, timeout: timeout)).map(Handle.init) {
            let kept = state.withLock { state in
                guard !state.closed else { return false }
                state.handle = fresh
                return true
            }
            if !kept { PQfinish(fresh.pointer) }
            return
        }
        for _ in 0..<10 where !state.withLock({ $0.closed }) { usleep(100_000) }
    }

    /// A session as the pool's (``PostgresConnection/open(url:applicationName:)``), made read-only, non-blocking
    /// and in pipeline mode. With a timeout, its statements end on the server a second after it (`statement_timeout`):
    /// a read that timed out here (its session dropped: shutting the socket does not stop a running statement, nor
    /// one waiting for a lock) does not keep its backend on the server, one more for each timeout; a second above, so
    /// that the server's timeout never answers a read the pipe would still time out (it would go to the pool again).
    private static func open(url: String, notices: PostgresNotice.Receiver, timeout: Duration?) throws -> OpaquePointer {
        let handle = try PostgresConnection.open(url: url, applicationName: "postern")
        var settings = "SET default_transaction_read_only = on"
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            settings += "; SET statement_timeout = \(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1000)"
        }
        let set = PQexec(handle, settings)
        let ready = set.map(PQresultStatus) == PGRES_COMMAND_OK
        PQclear(set)
        guard ready, PQsetnonblocking(handle, 1) == 0, PQenterPipelineMode(handle) == 1 else {
            let reason = PostgresConnection.message(PQerrorMessage(handle))
            PQfinish(handle)
            throw StorageError(.unavailable, "cannot set up PostgreSQL's read session: \(reason)")
        }
        notices.install(on: handle)
        return handle
    }

    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
