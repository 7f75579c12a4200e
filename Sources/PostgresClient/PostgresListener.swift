import Dispatch
import Glibc
import Logging
import Storage
import Synchronization

/// Listens on a PostgreSQL notification channel (`LISTEN`) on a connection of its own and calls
/// `onNotification` for what arrives, on its own queue: how one instance hears at once what another committed.
///
/// The loop, in order:
/// 1. Not connected: connects through the URL (a multi-host URL keeps the read-write host; a read-only server is
///    refused, see ``PostgresConnection/init(url:applicationName:requireSynchronousStandby:)``) and sends `LISTEN`.
///    On success `onNotification` is called once with nil: whatever was sent while nobody listened is unknown. On a
///    failure it waits, ``Timing/firstRetry`` then twice as long each time up to ``Timing/longestRetry``, and tries
///    again, for as long as it runs.
/// 2. Connected: waits for notifications (a quarter of a second at a time) and hands over their payloads; a lost
///    connection is step 1 again.
/// 3. Every ``Timing/probeEvery``: the previous probe must have come back, else the session is dropped (step 1);
///    then a new probe is sent. A probe is a `NOTIFY` on the channel sent through a new connection to the URL, so it
///    reaches the server where the writes now go: a listener left on a server that is no longer that one (an old
///    primary still writable after a new one was elected, as when a Patroni leader's manager dies) or on a socket
///    that silently went dead never hears it, and reconnects. A probe that cannot be sent (the database is away)
///    proves nothing and is not waited for. Probes (this listener's and every other's) are never handed over.
public final class PostgresListener: SQLNotificationListener {
    private let stopped = StopFlag()

    /// How often the listener retries and checks that it listens where the writes go. Defaults: a first retry after
    /// 0.1 s doubling up to 2 s; a probe every 5 s.
    public struct Timing: Sendable {
        /// The pause after the first failed connection attempt (doubled after each further failure).
        public var firstRetry: Duration = .milliseconds(100)
        /// The longest pause between connection attempts.
        public var longestRetry: Duration = .seconds(2)
        /// How often a probe is sent, and how long it has to come back before the session is replaced.
        public var probeEvery: Duration = .seconds(5)

        /// The defaults.
        public init() {}
    }

    /// The payloads that are probes start with this: a space, which no address (the mail channel's payload) or key
    /// id begins with.
    static let probePrefix = " postern-listener-probe "

    /// Asked to stop, and signalled once the loop has closed its connection.
    private final class StopFlag: Sendable {
        private let value = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set() { value.store(true, ordering: .relaxed) }

        /// Sleeps `duration` in slices of a tenth of a second, returning early when asked to stop.
        func pause(_ duration: Duration) {
            var left = duration
            while left > .zero, !isSet {
                let slice = min(left, .milliseconds(100))
                usleep(UInt32(slice.components.seconds * 1_000_000 + slice.components.attoseconds / 1_000_000_000_000))
                left -= slice
            }
        }
    }

    /// Starts listening.
    /// - Parameters:
    ///   - url: the database's URL.
    ///   - channel: the channel name: a constant of the caller's in lower case letters and underscores, never input.
    ///   - timing: the retries and the probe (``Timing``).
    ///   - onNotification: called on the listener's queue for each batch of notifications, and after each reconnection.
    public convenience init(
        url: String, channel: String, logger: Logger, timing: Timing = Timing(),
        onNotification: @escaping @Sendable () -> Void
    ) {
        self.init(url: url, channel: channel, logger: logger, timing: timing) { (_: [String]?) in onNotification() }
    }

    /// Starts listening, handing over the notifications' payloads.
    /// - Parameters:
    ///   - url: the database's URL.
    ///   - channel: the channel name: a constant of the caller's in lower case letters and underscores, never input.
    ///   - timing: the retries and the probe (``Timing``).
    ///   - onPayloads: called on the listener's queue with the payloads of each batch of notifications (probes left
    ///     out), and with nil after each (re)connection: whatever was sent while nobody listened is unknown.
    public init(
        url: String, channel: String, logger: Logger, timing: Timing = Timing(),
        onPayloads onNotification: @escaping @Sendable ([String]?) -> Void
    ) {
        let stopped = stopped
        DispatchQueue(label: "postern.postgres.listen.\(channel)").async {
            var connection: PostgresConnection?
            var lostLogged = false
            var retry = timing.firstRetry
            var probe: String?  // the payload of the probe not heard yet
            var nextProbe = ContinuousClock.now
            defer {
                connection = nil  // closed before stop() returns
                stopped.done.signal()
            }
            while !stopped.isSet {
                guard let listening = connection else {
                    do {
                        let fresh = try PostgresConnection(url: url, applicationName: "postern-listen")
                        try fresh.execute("LISTEN \(channel)")
                        connection = fresh
                        if lostLogged { logger.info("listening for \(channel) notifications again") }
                        lostLogged = false
                        retry = timing.firstRetry
                        probe = nil
                        nextProbe = .now + timing.probeEvery
                        onNotification(nil)
                    } catch {
                        if !lostLogged {
                            logger.warning(
                                "cannot listen for \(channel) notifications; retrying",
                                metadata: ["error": "\(error)"])
                        }
                        lostLogged = true
                        stopped.pause(retry)
                        retry = min(retry * 2, timing.longestRetry)
                    }
                    continue
                }
                do {
                    var payloads = try listening.waitForNotifications(milliseconds: 250)
                    if let awaited = probe, payloads.contains(awaited) { probe = nil }
                    payloads.removeAll { $0.hasPrefix(Self.probePrefix) }
                    if !payloads.isEmpty { onNotification(payloads) }
                } catch {
                    connection = nil
                    continue
                }
                guard ContinuousClock.now >= nextProbe else { continue }
                if probe != nil {
                    logger.warning("the \(channel) listener's probe did not come back; listening again elsewhere")
                    connection = nil
                    lostLogged = true
                    continue
                }
                probe = Self.sendProbe(url: url, channel: channel)
                nextProbe = .now + timing.probeEvery
            }
        }
    }

    /// Sends a probe on `channel` through a new connection to `url`: its payload, or nil when it could not be sent.
    private static func sendProbe(url: String, channel: String) -> String? {
        let payload = probePrefix + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        do {
            let sender = try PostgresConnection(url: url, applicationName: "postern-listen-probe")
            // A NOTIFY takes a transaction id, so its commit would wait for a synchronous standby, for ever while none
            // streams, and this loop with it; the probe needs no standby.
            try sender.execute("SET synchronous_commit = local")
            _ = try sender.query("SELECT pg_notify(?, ?)", [.text(channel), .text(payload)])
            return payload
        } catch {
            return nil
        }
    }

    /// Stops listening and waits for the listener's queue to finish (within about a quarter of a second,
    /// or a connection attempt's timeout); the connection is closed when it returns. Calling it again does nothing.
    public func stop() {
        guard !stopped.isSet else { return }
        stopped.set()
        stopped.done.wait()
    }

    deinit { stop() }
}
