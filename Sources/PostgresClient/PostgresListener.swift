import Dispatch
import Glibc
import Logging
import Storage
import Synchronization

/// Listens on a PostgreSQL notification channel (`LISTEN`) on a connection of its own and calls
/// `onNotification` for what arrives, on its own queue: how one instance hears at once that another
/// rotated the signing keys. A lost connection is re-established every second until the database is back,
/// and `onNotification` is then called once, for whatever was sent while nobody listened.
public final class PostgresListener: SQLNotificationListener {
    private let stopped = StopFlag()

    /// Asked to stop, and signalled once the loop has closed its connection.
    private final class StopFlag: Sendable {
        private let value = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set() { value.store(true, ordering: .relaxed) }
    }

    /// Starts listening.
    /// - Parameters:
    ///   - url: the database's URL.
    ///   - channel: the channel name: a constant of the caller's in lower case letters and underscores, never input.
    ///   - onNotification: called on the listener's queue for each batch of notifications, and after each reconnection.
    public convenience init(
        url: String, channel: String, logger: Logger, onNotification: @escaping @Sendable () -> Void
    ) {
        self.init(url: url, channel: channel, logger: logger) { (_: [String]?) in onNotification() }
    }

    /// Starts listening, handing over the notifications' payloads.
    /// - Parameters:
    ///   - url: the database's URL.
    ///   - channel: the channel name: a constant of the caller's in lower case letters and underscores, never input.
    ///   - onPayloads: called on the listener's queue with the payloads of each batch of notifications, and with nil
    ///     after each (re)connection: whatever was sent while nobody listened is unknown.
    public init(url: String, channel: String, logger: Logger, onPayloads onNotification: @escaping @Sendable ([String]?) -> Void) {
        let stopped = stopped
        DispatchQueue(label: "postern.postgres.listen.\(channel)").async {
            var connection: PostgresConnection?
            var lostLogged = false
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
                        lostLogged = false
                        onNotification(nil)
                    } catch {
                        if !lostLogged {
                            logger.warning(
                                "cannot listen for \(channel) notifications; retrying each second",
                                metadata: ["error": "\(error)"])
                        }
                        lostLogged = true
                        for _ in 0..<10 where !stopped.isSet { usleep(100_000) }
                    }
                    continue
                }
                do {
                    let payloads = try listening.waitForNotifications(milliseconds: 250)
                    if !payloads.isEmpty { onNotification(payloads) }
                } catch {
                    connection = nil
                }
            }
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
