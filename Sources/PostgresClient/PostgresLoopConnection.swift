import CLibPQ
import Storage

/// One PostgreSQL connection in libpq's non-blocking mode, its socket watched by the event loop that owns it: a read is
/// sent, the loop goes on serving its other sockets, and the answer is taken and handed to the read's caller on the
/// loop when the socket says it came (``PostgresLoopReadMachine`` decides each step; this type makes libpq's calls).
///
/// A statement is prepared on its first use (one round trip more, as ``PostgresConnection`` does), then run by name.
/// One statement at a time; its caller is answered once: with its rows, with the error PostgreSQL gave it, or with
/// `.unavailable` when the connection was lost or the statement outlived its time (the connection is then closed and
/// never used again: ``isBroken``).
///
/// Confined to its loop: every method is called there, and every callback runs there.
final class PostgresLoopConnection {
    /// What a read's caller is given, on the loop.
    typealias Completion = (Result<[SQLRow], any Error>) -> Void

    /// A statement and its caller.
    struct Read {
        let sql: String
        let bindings: [SQLValue]
        let completion: Completion
    }

    private typealias StatementKey = PostgresStatementKey
    private typealias Prepared = PostgresPreparedStatement

    /// The read in flight: its statement, and the name it is being prepared under when that comes first.
    private struct InFlight {
        let read: Read
        let key: StatementKey
        var preparing: Prepared?
    }

    private var handle: OpaquePointer?
    /// The socket, as libpq gave it when the connection was made (it never changes: no `PQreset` here).
    let fd: Int32
    private let reactor: any DescriptorReactor
    private var machine: PostgresLoopReadMachine
    private var statements: [StatementKey: Prepared] = [:]
    private var preparedCount = 0
    private var inFlight: InFlight?
    /// The first result of the statement in flight, kept until the last is taken.
    private var firstResult: OpaquePointer?
    /// Every result of the statement in flight was taken: its caller is answered when the machine has taken that in.
    private var answerDue = false
    /// Whether the socket is watched for writing too (so that an unchanged interest costs no system call).
    private var watchingWrites = false
    private let timeoutNanoseconds: UInt64
    /// Told, on the loop, when the connection can take another read (after answering one).
    var onIdle: (PostgresLoopConnection) -> Void = { _ in }
    /// Told, on the loop, once, when the connection broke.
    var onBroken: (PostgresLoopConnection) -> Void = { _ in }
    /// Statements sent and waited for (prepares included), for the tests that count round trips.
    private(set) var roundTrips = 0
    private static let statementCacheLimit = 256

    /// Takes `handle` (connected, accepting writes: ``PostgresConnection/connect(url:applicationName:)``), puts it in
    /// non-blocking mode and has `reactor` watch its socket for reading. Call on the loop.
    /// - Parameter generation: the ``PostgresPrimaryDoubt/generation`` current when the handle began to open
    ///   (``follow(_:)``).
    /// - Throws: `StorageError` `.unavailable` when libpq refuses non-blocking mode or the loop cannot watch the
    ///   socket; the handle is finished then.
    init(handle: OpaquePointer, reactor: any DescriptorReactor, timeout: Duration, openedUnder generation: UInt64) throws {
        machine = PostgresLoopReadMachine(openedUnder: generation)
        let socket = PQsocket(handle)
        guard socket >= 0, PQsetnonblocking(handle, 1) == 0 else {
            PQfinish(handle)
            throw StorageError(.unavailable, "PostgreSQL connection could not be made non-blocking")
        }
        self.handle = handle
        fd = socket
        self.reactor = reactor
        let (seconds, attoseconds) = timeout.components
        timeoutNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        do {
            try reactor.watch(socket, writable: false) { [unowned self] readable, writable in
                self.ready(readable: readable, writable: writable)
            }
        } catch {
            PQfinish(handle)
            self.handle = nil
            throw StorageError(.unavailable, "the event loop could not watch a PostgreSQL connection")
        }
    }

    /// Finishes a handle no connection took (the database closed while it was opened).
    static func finish(_ handle: OpaquePointer) {
        PQfinish(handle)
    }

    deinit {
        if let firstResult { PQclear(firstResult) }
        if let handle { PQfinish(handle) }
    }

    /// Whether a read may be started now.
    var isIdle: Bool { machine.state == .idle && handle != nil }
    /// Whether the connection is lost or was given up on (closed; to be dropped).
    var isBroken: Bool { machine.state == .broken || handle == nil }

    /// Sends `read`'s statement (prepared first if this connection has not yet). Never answers `read` before it
    /// returns: a failure to send is answered at the loop's next turn. Call on the loop, only when ``isIdle``.
    func start(_ read: Read) {
        precondition(isIdle, "a PostgreSQL loop connection runs one statement at a time")
        let key = StatementKey(sql: read.sql, types: read.bindings.map(PostgresParameters.typeOID))
        reactor.setDeadline(fd, reactor.now() &+ timeoutNanoseconds) { [unowned self] in self.feed(.timedOut) }
        if let statement = statements[key] {
            inFlight = InFlight(read: read, key: key, preparing: nil)
            send(statement, read.bindings)
        } else {
            if statements.count >= Self.statementCacheLimit { statements.removeAll() }  // names stay unique: no clash
            let (numbered, count) = PostgresPlaceholders.numbered(read.sql)
            preparedCount += 1
            let statement = Prepared(name: "l\(preparedCount)", parameterCount: count)
            inFlight = InFlight(read: read, key: key, preparing: statement)
            roundTrips += 1
            let accepted = key.types.withUnsafeBufferPointer { types in
                PQsendPrepare(
                    handle, statement.name, numbered, Int32(count), count == key.types.count ? types.baseAddress : nil)
            }
            feed(accepted == 1 ? .sent : .lost)
        }
    }

    /// Closes the connection at once (the database closes): a read in flight is answered `.unavailable`.
    func close() {
        feed(.lost)
    }

    /// Closes the connection when the pool's doubt that its server is still the primary is at a `generation` raised
    /// after it began to open (``PostgresLoopReadMachine`` rule 8): a read in flight is answered `.unavailable`, and
    /// ``isBroken`` says it is to be dropped. Call on the loop.
    func follow(_ generation: UInt64) {
        feed(.primaryDoubted(generation: generation))
    }

    // MARK: - Driving the machine

    private func send(_ statement: Prepared, _ bindings: [SQLValue]) {
        guard statement.parameterCount == bindings.count else {
            return fail(StorageError(
                .misuse, "statement has \(statement.parameterCount) placeholders but \(bindings.count) values were bound"))
        }
        roundTrips += 1
        let accepted = PostgresParameters.withEncoded(bindings) { values, lengths, formats in
            PQsendQueryPrepared(handle, statement.name, Int32(bindings.count), values, lengths, formats, 0)
        }
        feed(accepted == 1 ? .sent : .lost)
    }

    private func ready(readable: Bool, writable: Bool) {
        if writable { feed(.writable) }
        if readable { feed(.readable) }
    }

    /// Hands `event` to the machine and carries out its actions, each outcome fed back, until it asks for nothing.
    private func feed(_ event: PostgresLoopReadMachine.Event) {
        var next: PostgresLoopReadMachine.Event? = event
        while let event = next {
            next = perform(machine.handle(event), after: event)
        }
        if answerDue {
            answerDue = false
            answer()
        }
    }

    /// One action's libpq call, `event` the one that asked for it; the event its outcome is, or nil.
    private func perform(
        _ action: PostgresLoopReadMachine.Action, after event: PostgresLoopReadMachine.Event
    ) -> PostgresLoopReadMachine.Event? {
        guard action != .none else { return nil }
        guard let handle else { return action == .fail ? nil : .lost }
        switch action {
        case .none:
            return nil
        case .flush:
            switch PQflush(handle) {
            case 0: return .flushed(done: true)
            case 1: return .flushed(done: false)
            default: return .lost
            }
        case .watch(let writable):
            guard writable != watchingWrites else { return nil }
            do {
                try reactor.rewatch(fd, writable: writable)
                watchingWrites = writable
                return nil
            } catch {
                return .lost
            }
        case .consume:
            guard PQconsumeInput(handle) != 0, PQstatus(handle) == CONNECTION_OK else { return .lost }
            return .consumed(busy: PQisBusy(handle) != 0)
        case .collect:
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else {
                    // Every result taken: the caller is answered once the machine is idle again (`feed`).
                    answerDue = true
                    return .taken
                }
                if firstResult == nil { firstResult = result } else { PQclear(result) }
            }
            return .partial
        case .fail:
            let reason =
                switch event {
                case .primaryDoubted: "dropped: a write in doubt says its server may no longer be the primary"
                case .timedOut: "given up on: the read outlived its time"
                default: "lost: \(PostgresConnection.message(PQerrorMessage(handle)))"
                }
            fail(StorageError(.unavailable, "PostgreSQL connection read from the event loop was \(reason)"))
            return nil
        }
    }

    /// Answers the statement whose results were all taken: a prepare goes on to its run; a run gives its rows or
    /// error to its caller.
    private func answer() {
        guard let handle, let current = inFlight else { return }
        let result = firstResult
        firstResult = nil
        defer { if let result { PQclear(result) } }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        let succeeded = status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK
        if let preparing = current.preparing {
            guard succeeded else { return finish(current.read, .failure(Self.error(result, handle))) }
            statements[current.key] = preparing
            inFlight?.preparing = nil
            return send(preparing, current.read.bindings)
        }
        guard succeeded, let result, let statement = statements[current.key] else {
            return finish(current.read, .failure(Self.error(result, handle)))
        }
        let known = statement.columns.flatMap { $0.count == Int(PQnfields(result)) ? $0 : nil }
        let columns = known ?? PostgresResult.columns(result)
        statement.columns = columns
        finish(current.read, .success(PostgresResult.rows(result, columns: columns)))
    }

    /// Answers `read` on the loop and tells the owner the connection is free.
    private func finish(_ read: Read, _ outcome: Result<[SQLRow], any Error>) {
        inFlight = nil
        reactor.setDeadline(fd, nil) {}
        read.completion(outcome)
        if isIdle { onIdle(self) }
    }

    /// The connection broke (or was closed): it stops being watched and is finished; the read in flight, if any, is
    /// answered `error` at the loop's next turn (never inside the call that started it).
    private func fail(_ error: any Error) {
        if machine.state != .broken { _ = machine.handle(.lost) }
        guard let handle else { return }
        reactor.unwatch(fd)
        PQfinish(handle)
        self.handle = nil
        if let firstResult { PQclear(firstResult) }
        firstResult = nil
        let read = inFlight?.read
        inFlight = nil
        onBroken(self)
        if let read {
            let box = UncheckedCompletion(read.completion)
            reactor.execute { box.completion(.failure(error)) }
        }
    }

    /// The error a failed result stands for: `.unavailable` when the connection itself failed, else by its SQLSTATE.
    private static func error(_ result: OpaquePointer?, _ handle: OpaquePointer) -> StorageError {
        guard PQstatus(handle) == CONNECTION_OK else {
            return StorageError(.unavailable, "connection to PostgreSQL lost: \(PostgresConnection.message(PQerrorMessage(handle)))")
        }
        let (sqlState, message) = PostgresConnection.errorFields(result, handle)
        return PostgresErrors.storageError(sqlState: sqlState, message: message)
    }
}

/// A read's completion carried to the loop's next turn through `execute`, whose block must be `Sendable`.
/// `@unchecked Sendable`: it is made on the loop and called on the loop (the block `execute` runs is serialized with
/// the loop's turns by the loop's queue), never on two threads at once.
private struct UncheckedCompletion: @unchecked Sendable {
    let completion: PostgresLoopConnection.Completion

    init(_ completion: @escaping PostgresLoopConnection.Completion) {
        self.completion = completion
    }
}
