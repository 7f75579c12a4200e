import Logging
import SigningKeys
import Synchronization

/// Rereads the key ring every `interval` while started: keys rotated by `postern keys rotate` (or by another
/// instance), published keys whose time to sign has come, keys past their retention. Every surface and the JWKS see
/// the change at once (they share the key set).
final class KeyReloadLoop: Sendable {
    private let store: any SigningKeyStore
    private let interval: Duration
    private let clock: @Sendable () -> Int64
    private let logger: Logger
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(store: any SigningKeyStore, interval: Duration, clock: @escaping @Sendable () -> Int64, logger: Logger) {
        self.store = store
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// Starts the loop (once).
    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [store, interval, clock, logger] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled else { return }
                    // A reload reads files or waits on the database (up to its 5 s connect timeout while PostgreSQL
                    // is down): on a thread of its own, never on the cooperative pool the deferred handlers need.
                    await Blocking.run { Self.reload(store, now: clock(), logger: logger) }
                }
            }
        }
    }

    /// Stops the loop and waits for a reload in progress to finish.
    func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            task?.cancel()
            return task
        }
        await running?.value
    }

    /// One reload; a failure keeps the keys loaded before.
    static func reload(_ store: any SigningKeyStore, now: Int64, logger: Logger) {
        do {
            try store.reload(now: now)
        } catch {
            logger.error("reloading keys failed; serving with the keys loaded before", metadata: ["error": "\(error)"])
        }
    }
}
