import Storage

/// The one "wait for a change, then push" of the server: an async sequence of ``MailStreamEvent``s for one address
/// (or for every address), which every push door consumes and formats (JMAP's event source and WebSocket, the web
/// inbox's live list, mail.cx's `/api/ws`, the operator's events, `/messages/wait` and MCP's wait).
///
/// Made by ``MailStore/changeStream(of:from:quiet:until:recheck:)``. Its iterator takes a ticket on the store's
/// ``MailChanges`` when it is made and each time it hands out an element, before the consumer looks at anything, so
/// that nothing announced meanwhile is missed. Each call of `next()`, in the consumer's task:
/// 1. looks at the address's state (after the ticket);
/// 2. a state other than the last one handed out (or than `from`): reads the change log between the two, runs the
///    re-check, and returns ``MailStreamEvent/changed(_:)``;
/// 3. woken by an announcement for the address without a state move: the re-check, then ``MailStreamEvent/woken``;
/// 4. `quiet` passed since the last element: the re-check, then ``MailStreamEvent/quiet``;
/// 5. else parks on the ticket until the address is announced (this instance's writes; on PostgreSQL every
///    instance's, through `NOTIFY postern_mail`), the next quiet element is due, `until` passes, or, on SQLite, the
///    look interval (``MailStore/unannouncedLookInterval``) passes: another process writing the same file
///    (`postern mail deliver`) announces nothing here, so the state is looked at again each second. Then 1 again.
///
/// A look that finds the database unavailable (`StorageError` `.unavailable`: a failover, the moment a reconnected
/// listener wakes every stream) does not end the stream: it parks as in 5, for at most
/// ``MailStore/unannouncedLookInterval``, and looks again, with what woke it still owed; the re-check of a quiet
/// element is tried again likewise. Any other error ends it. A consumer's own reads after an element outlast an
/// outage the same way through ``MailStore/outlastingOutages(until:clock:_:)``.
///
/// It ends (nil) when the re-check says no or when `until` passes, and throws `CancellationError` when the
/// consumer's task is cancelled (a closed socket, a shut-down server), so a consumer's socket lives exactly as long
/// as its loop. A stream of every address (`of: nil`) has no state to compare: every announcement, and on SQLite
/// every look, is ``MailStreamEvent/woken``.
public struct MailChangeStream: AsyncSequence, Sendable {
    public typealias Element = MailStreamEvent

    let store: MailStore
    let address: String?
    let from: Int64?
    let quiet: Duration?
    let until: ContinuousClock.Instant?
    let recheck: @Sendable () async throws -> Bool
    let clock: MailStreamClock

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            stream: self, known: from, lastElement: clock.now(),
            tickets: (store.changes.ticket(), store.changes.anyChange.ticket()))
    }

    /// The stream's position: the state last handed out, when the last element went, and the tickets taken as it
    /// went (before the consumer looked at anything the element made it look at).
    public struct Iterator: AsyncIteratorProtocol {
        let stream: MailChangeStream
        var known: Int64?
        var lastElement: ContinuousClock.Instant
        var tickets: (address: MailChanges.Ticket, any: Int)?

        public mutating func next() async throws -> MailStreamEvent? {
            let store = stream.store
            let changes = store.changes
            let sqlite = store.database.dialect == .sqlite
            let clock = stream.clock
            var announced = false
            while true {
                try Task.checkCancellation()
                let (ticket, anyTicket) = tickets ?? (changes.ticket(), changes.anyChange.ticket())
                tickets = nil
                do {
                    if let event = try await look(announced: announced) { return event }
                } catch where MailStore.isOutage(error) {
                    // Parked as below for a look interval at most, then looked at again; a wake-up is still owed.
                    if let until = stream.until, clock.now() >= until { return nil }
                    if let address = stream.address {
                        let woke = await changes.wait(
                            for: address, after: ticket, timeout: MailStore.unannouncedLookInterval, sleep: clock.sleep)
                        announced = announced || woke
                    } else {
                        await changes.anyChange.wait(
                            after: anyTicket, timeout: MailStore.unannouncedLookInterval, sleep: clock.sleep)
                        announced = announced || changes.anyChange.ticket() != anyTicket
                    }
                    continue
                }
                let now = clock.now()
                if let until = stream.until, now >= until { return nil }
                var pause = Duration.seconds(3600)
                if let quiet = stream.quiet {
                    let left = quiet - (now - lastElement)
                    if left <= .zero {
                        guard try await store.outlastingOutages(clock: clock, stream.recheck) else { return nil }
                        return hand(.quiet, state: known)
                    }
                    pause = Swift.min(pause, left)
                }
                if let until = stream.until { pause = Swift.min(pause, until - now) }
                let looking = sqlite && pause > MailStore.unannouncedLookInterval
                if looking { pause = MailStore.unannouncedLookInterval }
                if let address = stream.address {
                    announced = await changes.wait(for: address, after: ticket, timeout: pause, sleep: clock.sleep)
                } else {
                    await changes.anyChange.wait(after: anyTicket, timeout: pause, sleep: clock.sleep)
                    // Every address: no state to compare, so each announcement and each look is a wake-up.
                    announced = changes.anyChange.ticket() != anyTicket || looking
                }
            }
        }

        /// Steps 1 to 3: the element the state (or a wake-up) makes, or nil when there is none yet. An element of nil
        /// (the re-check said no) ends the stream: `.some(nil)`.
        private mutating func look(announced: Bool) async throws -> MailStreamEvent?? {
            if let address = stream.address {
                let state = try await stream.store.state(address: address)
                if state != known {
                    var log: [MailChange]?
                    if let known { log = try await stream.store.changes(address: address, since: known)?.log }
                    let change = MailStreamChange(address: address, previous: known, state: state, log: log)
                    guard try await stream.recheck() else { return .some(nil) }
                    return hand(.changed(change), state: state)
                }
            }
            if announced {
                guard try await stream.recheck() else { return .some(nil) }
                return hand(.woken, state: known)
            }
            return nil
        }

        /// Hands `event` out: the tickets for the next park are taken now, before the consumer looks.
        private mutating func hand(_ event: MailStreamEvent, state: Int64?) -> MailStreamEvent {
            tickets = (stream.store.changes.ticket(), stream.store.changes.anyChange.ticket())
            known = state
            lastElement = stream.clock.now()
            return event
        }
    }
}

extension MailStore {
    /// What `body` returns, tried again each ``unannouncedLookInterval`` of `clock` for as long as it fails because the
    /// database is unavailable (`StorageError` `.unavailable`: a failover): how a consumer's reads after a change-stream
    /// element (the states it compares, the log it names, the message a wait looks for) outlast an outage instead of
    /// ending the client's stream. Once `until` has passed (a held request's end), the outage is thrown, for the door
    /// to answer as its hold would end; any other error is thrown at once; a cancelled task throws
    /// `CancellationError`.
    public func outlastingOutages<T>(
        until: ContinuousClock.Instant? = nil, clock: MailStreamClock = .continuous, _ body: () async throws -> T
    ) async throws -> T {
        while true {
            do {
                return try await body()
            } catch where Self.isOutage(error) {
                if let until, clock.now() >= until { throw error }
                try await clock.sleep(Self.unannouncedLookInterval)
            }
        }
    }

    /// Whether `error` is the database being unavailable (`StorageError` `.unavailable`: a failover; on PostgreSQL
    /// also a read past the commit timeout), which the change stream and ``outlastingOutages(until:clock:_:)`` wait out.
    public static func isOutage(_ error: any Error) -> Bool {
        (error as? StorageError)?.code == .unavailable
    }

    /// The change stream of `address`'s mail, or of every address's (`of: nil`); see ``MailChangeStream``.
    /// - Parameters:
    ///   - from: the state the consumer knows (a client's `Last-Event-ID`, the state a page was rendered at): a
    ///     different state now is the first element at once. Nil: the first look is a change from nothing.
    ///   - quiet: how long without an element before a ``MailStreamEvent/quiet`` one (pings, and the re-check when
    ///     nothing happens); nil: never.
    ///   - until: when the stream ends (a wait's timeout); nil: never.
    ///   - recheck: whether the consumer may still listen (its bearer, its session), run before every element; the
    ///     stream ends when it says no.
    ///   - clock: what `quiet`, `until` and the parks are measured by (``MailStreamClock/continuous``; a test's own).
    public func changeStream(
        of address: String?, from: Int64? = nil, quiet: Duration? = nil, until: ContinuousClock.Instant? = nil,
        recheck: @escaping @Sendable () async throws -> Bool = { true }, clock: MailStreamClock = .continuous
    ) -> MailChangeStream {
        MailChangeStream(
            store: self, address: address, from: from, quiet: quiet, until: until, recheck: recheck, clock: clock)
    }
}
