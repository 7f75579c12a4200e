import Dispatch
import Logging
import Storage
import Synchronization

/// Each event loop's own PostgreSQL read connections (``PostgresLoopConnection``), as SQLite's loops each own a reader
/// (`ThreadOwnedReaders`): a read sent from a loop is answered on that loop, and no thread waits for it.
///
/// The rules:
/// - A loop's connections are opened lazily, on a thread of their own (libpq's connect blocks; a loop never does):
///   the read that finds none goes the pool's way (``read(on:_:_:completion:)`` returns false) while one is opened.
///   At most ``perLoop`` per loop.
/// - The same connection rules as the pool's (``PostgresConnection/connect(url:applicationName:)``): a server that
///   refuses writes (a standby a single host or a balancer led to after a failover) is not kept, so that a loop never
///   reads older data than the pool's connections, which write, would.
/// - A connection that breaks (the server ended the session: a restart, a failover, `pg_terminate_backend`; or a read
///   outlived the commit timeout) is dropped; its read in flight is answered `.unavailable`, which its caller reads
///   again through the pool; the reads queued behind it go to the loop's other connections, or the same way. The next
///   read opens a new one, after a pause of a second when opening failed.
/// - The pool's doubt that the server is still the primary (``PostgresPrimaryDoubt``: a write outlived the commit
///   timeout) drops every loop's connections opened before it was raised, as the pool makes its idle ones anew: at once
///   when the raise reaches the loop, and in any case before the loop's next read; a read in flight on one is answered
///   `.unavailable`. A connection that was opening meanwhile is not adopted and another is opened. The next ones go
///   to what the URL resolves to now (its `target_session_attrs`, the read-only check above), never to the old server
///   because a connection was kept.
/// - At most ``waitingLimit`` reads wait per loop for a free connection; past it, reads go the pool's way.
final class PostgresLoopReaders: Sendable {
    /// How many connections each loop may hold.
    let perLoop: Int
    /// How many reads may wait per loop for one of its connections.
    let waitingLimit: Int
    private let url: String
    private let timeout: Duration
    private let logger: Logger
    private let primaryDoubt: PostgresPrimaryDoubt
    private let shares = Mutex<(byLoop: [ObjectIdentifier: Share], closed: Bool)>(([:], false))

    /// One loop's connections and the reads waiting for them. `@unchecked Sendable`: touched only on its loop (reads
    /// start there, and every callback of its connections and of an opening runs there, through the reactor).
    final class Share: @unchecked Sendable {
        let reactor: any DescriptorReactor
        var connections: [PostgresLoopConnection] = []
        var opening = 0
        var waiting: [PostgresLoopConnection.Read] = []
        /// No connection is opened before this (the loop's clock), after one failed to open.
        var openAfter: UInt64 = 0
        var closed = false
        /// The primary doubt's generation its connections were last made to follow.
        var followed: UInt64 = 0

        init(reactor: any DescriptorReactor) {
            self.reactor = reactor
        }
    }

    /// Readers of `url`, following `primaryDoubt` (raised by the pool of the same database).
    init(
        url: String, perLoop: Int, waitingLimit: Int = 128, timeout: Duration, primaryDoubt: PostgresPrimaryDoubt,
        logger: Logger
    ) {
        self.url = url
        self.perLoop = max(1, perLoop)
        self.waitingLimit = waitingLimit
        self.timeout = timeout
        self.primaryDoubt = primaryDoubt
        self.logger = logger
        primaryDoubt.follow { [weak self] generation in self?.followEverywhere(generation) }
    }

    /// Sends `sql` on one of the calling loop's connections; `completion` runs on that loop. False, without calling
    /// `completion`, when the loop has no open connection yet or too many reads wait (one is opened meanwhile).
    func read(
        on reactor: any DescriptorReactor, _ sql: String, _ bindings: [SQLValue],
        completion: @escaping PostgresLoopConnection.Completion
    ) -> Bool {
        guard let share = share(of: reactor) else { return false }
        follow(share, primaryDoubt.generation)
        let read = PostgresLoopConnection.Read(sql: sql, bindings: bindings, completion: completion)
        if let idle = share.connections.first(where: \.isIdle) {
            idle.start(read)
            return true
        }
        openIfRoom(share)
        guard !share.connections.isEmpty, share.waiting.count < waitingLimit else { return false }
        share.waiting.append(read)
        return true
    }

    /// Closes every loop's connections (on each loop); later reads go the pool's way.
    func close() {
        let all = shares.withLock { state in
            state.closed = true
            return Array(state.byLoop.values)
        }
        for share in all {
            share.reactor.execute {
                share.closed = true
                for connection in share.connections { connection.close() }
                share.connections.removeAll()
            }
        }
    }

    /// Has every loop drop its connections opened before `generation` of the primary doubt, each on its loop.
    private func followEverywhere(_ generation: UInt64) {
        for share in shares.withLock({ Array($0.byLoop.values) }) {
            share.reactor.execute { self.follow(share, generation) }
        }
    }

    /// Drops `share`'s connections opened before `generation` of the primary doubt, once per generation (a read
    /// pays one comparison). On the loop.
    private func follow(_ share: Share, _ generation: UInt64) {
        guard share.followed < generation else { return }
        share.followed = generation
        for connection in share.connections { connection.follow(generation) }  // a broken one leaves the array
    }

    /// The loop's share, made on its first read; nil once closed.
    private func share(of reactor: any DescriptorReactor) -> Share? {
        shares.withLock { state in
            guard !state.closed else { return nil }
            if let share = state.byLoop[reactor.identity] { return share }
            let share = Share(reactor: reactor)
            state.byLoop[reactor.identity] = share
            return share
        }
    }

    /// Opens one more connection for `share` when it has room and is not pausing after a failure. On the loop.
    private func openIfRoom(_ share: Share) {
        guard !share.closed, share.connections.count + share.opening < perLoop, share.reactor.now() >= share.openAfter
        else { return }
        share.opening += 1
        let (url, timeout, logger) = (url, timeout, logger)
        let generation = primaryDoubt.generation
        DispatchQueue.global().async {
            let opened = Result { OpenedHandle(try PostgresConnection.connect(url: url, applicationName: "postern-loop")) }
            share.reactor.execute {
                share.opening -= 1
                do {
                    let handle = try opened.get().handle
                    guard !share.closed else { return OpenedHandle.finish(handle) }
                    let connection = try PostgresLoopConnection(
                        handle: handle, reactor: share.reactor, timeout: timeout, openedUnder: generation)
                    connection.follow(self.primaryDoubt.generation)
                    // Opened while the doubt was raised: perhaps on the old server; closed by `follow`, made again.
                    guard !connection.isBroken else { return self.openIfRoom(share) }
                    self.adopt(connection, share)
                } catch {
                    share.openAfter = share.reactor.now() &+ 1_000_000_000
                    logger.debug("a loop's PostgreSQL read connection could not be opened", metadata: ["error": "\(error)"])
                    self.failWaiting(share, error)
                }
            }
        }
    }

    /// Puts a new connection to work: the reads waiting go to it. On the loop.
    private func adopt(_ connection: PostgresLoopConnection, _ share: Share) {
        connection.onIdle = { [unowned share] connection in
            guard !share.waiting.isEmpty else { return }
            connection.start(share.waiting.removeFirst())
        }
        connection.onBroken = { [unowned share] broken in
            share.connections.removeAll { $0 === broken }
            if share.connections.isEmpty {
                self.failWaiting(share, StorageError(.unavailable, "the loop's PostgreSQL read connections were lost"))
            }
        }
        share.connections.append(connection)
        if !share.waiting.isEmpty { connection.start(share.waiting.removeFirst()) }
    }

    /// Answers the reads waiting with `error` (their callers read through the pool instead). On the loop.
    private func failWaiting(_ share: Share, _ error: any Error) {
        let waiting = share.waiting
        share.waiting.removeAll()
        guard !waiting.isEmpty else { return }
        let box = WaitingReads(waiting)
        share.reactor.execute { for read in box.reads { read.completion(.failure(error)) } }
    }
}

/// A connected libpq handle on its way from the thread that opened it to its loop. `@unchecked Sendable`: handed over
/// once, used by one side at a time.
private struct OpenedHandle: @unchecked Sendable {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    static func finish(_ handle: OpaquePointer) {
        PostgresLoopConnection.finish(handle)
    }
}

/// Reads answered at the loop's next turn. `@unchecked Sendable`: made and answered on the same loop.
private struct WaitingReads: @unchecked Sendable {
    let reads: [PostgresLoopConnection.Read]

    init(_ reads: [PostgresLoopConnection.Read]) {
        self.reads = reads
    }
}
