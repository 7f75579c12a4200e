/// The protocol of waiting for one statement on a non-blocking libpq connection whose socket an event loop watches:
/// what to do next after each thing libpq or the loop reports, with no libpq call and no socket in it (its driver,
/// ``PostgresLoopConnection``, makes the calls and feeds their outcomes back as events; tests feed them by hand).
///
/// The rules, in the order a statement meets them (libpq's manual, 34.4 "Asynchronous Command Processing"):
/// 1. `idle` + a statement handed to libpq (`PQsendQueryPrepared` or `PQsendPrepare` accepted it): `PQflush` it.
/// 2. A flush that sent everything (`PQflush` 0): `awaiting`, watching the socket for reading alone. A flush that left
///    bytes (1): `sending`, watching for writing and for reading, since the server may answer (an error) before it
///    read everything, and libpq must read to let it go on.
/// 3. `sending` + writable: flush again. `sending` + readable: consume the input, then flush again.
/// 4. `awaiting` + readable: consume the input (`PQconsumeInput`); then, when libpq says it is no longer busy
///    (`PQisBusy` 0), `result`: the results are read (`PQgetResult` until it gives none) without waiting.
/// 5. `result` + some results taken but libpq busy again before the last (its end not read yet): `awaiting`, as in
///    rule 4. `result` + the results taken: `idle`, watching for reading, so that a server that ends the session while the
///    connection waits for its next statement (a restart, a failover, `pg_terminate_backend`) is heard at once.
/// 6. `idle` + readable: consume the input; the connection is lost if libpq says so (rule 7), else nothing.
/// 7. In any state, a failed send, flush or read (libpq's status no longer `CONNECTION_OK`), or the time given a
///    statement run out: `broken`. The statement in flight, if any, fails, and the connection is closed: never a
///    second try on it (a broken session may have half a message in its buffers). Only a new connection leaves
///    `broken`.
/// 8. In any state but `broken`, a doubt that the server is still the primary raised after the connection began to
///    open (``PostgresPrimaryDoubt``: `primaryDoubted` with a generation past the one it was opened under): `broken`,
///    as in rule 7, whether a statement is in flight or not. Its answer could come from an old primary a failover left
///    up, older than what the pool's connections, made anew, acknowledged on the new one; so the statement fails
///    (`.unavailable`: its caller reads through the pool) and the next read goes to a new connection. A doubt raised
///    before the connection began to open (the same generation, or an older) changes nothing.
/// An event its state does not expect (readable while `result`, a flush while `idle`) is ignored: it can only be a
/// report that arrived after the state moved on, never a reason to act twice.
struct PostgresLoopReadMachine: Equatable {
    /// Where the connection is in a statement's life.
    enum State: Equatable {
        /// No statement in flight.
        case idle
        /// A statement handed to libpq, some of its bytes not yet written to the socket.
        case sending
        /// Everything sent; the answer not complete yet.
        case awaiting
        /// The answer is complete in libpq's buffers: reading it cannot wait.
        case result
        /// Lost, or given up on: closed, to be replaced.
        case broken
    }

    /// What happened, as libpq or the loop tells it.
    enum Event: Equatable {
        /// libpq accepted a statement to send (`PQsendQueryPrepared`/`PQsendPrepare` returned 1).
        case sent
        /// `PQflush` returned: `done` when nothing is left to send (0), false when some is (1).
        case flushed(done: Bool)
        /// The socket can take more bytes.
        case writable
        /// The socket has bytes to read (or was closed by the server).
        case readable
        /// `PQconsumeInput` succeeded; `busy` is what `PQisBusy` said after it.
        case consumed(busy: Bool)
        /// Every result of the statement was taken (`PQgetResult` gave nil).
        case taken
        /// Some results were taken, but libpq is busy again before the last: the rest is still on its way.
        case partial
        /// libpq failed a send, flush or read, or its connection is no longer `CONNECTION_OK`.
        case lost
        /// The statement's time ran out.
        case timedOut
        /// The pool's doubt that the server is still the primary is at `generation` (``PostgresPrimaryDoubt``).
        case primaryDoubted(generation: UInt64)
    }

    /// What the driver does next.
    enum Action: Equatable {
        /// Nothing.
        case none
        /// Call `PQflush`.
        case flush
        /// Watch the socket for reading, and for writing when `writable`.
        case watch(writable: Bool)
        /// Call `PQconsumeInput` (then `PQisBusy`).
        case consume
        /// Take the results (`PQgetResult` until nil) and answer the statement's caller.
        case collect
        /// Fail the statement in flight (if any), stop watching the socket and close the connection.
        case fail
    }

    private(set) var state: State = .idle
    /// The ``PostgresPrimaryDoubt/generation`` the connection began to open under (rule 8).
    let openedUnder: UInt64

    /// A machine for a connection that began to open under `generation` of the pool's primary doubt.
    init(openedUnder generation: UInt64 = 0) {
        openedUnder = generation
    }

    /// Whether a statement may be handed to libpq now.
    var isIdle: Bool { state == .idle }

    /// The state's answer to `event`.
    mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        case (.broken, _):
            return .none
        case (_, .lost), (.sending, .timedOut), (.awaiting, .timedOut), (.result, .timedOut):
            state = .broken
            return .fail
        case (_, .primaryDoubted(let generation)):
            guard generation > openedUnder else { return .none }
            state = .broken
            return .fail
        case (.idle, .sent):
            state = .sending
            return .flush
        case (.sending, .flushed(let done)):
            state = done ? .awaiting : .sending
            return .watch(writable: !done)
        case (.sending, .writable):
            return .flush
        case (.sending, .readable), (.awaiting, .readable), (.idle, .readable):
            return .consume
        case (.sending, .consumed):
            // Input read while the statement is still going out: libpq has room again, the flush goes on.
            return .flush
        case (.awaiting, .consumed(let busy)):
            guard !busy else { return .none }
            state = .result
            return .collect
        case (.idle, .consumed):
            return .none
        case (.result, .taken):
            state = .idle
            return .watch(writable: false)
        case (.result, .partial):
            state = .awaiting
            return .none
        default:
            return .none
        }
    }
}
