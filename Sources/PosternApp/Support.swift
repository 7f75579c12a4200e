import Foundation
import HTTPServer
import Synchronization

/// Layout of the data directory: `postern.sqlite3` (and `keys/`, which `KeyStore` owns).
enum DataDirectory {
    /// Creates the directory (mode 0700) when missing.
    static func prepare(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The SQLite database file.
    static func databasePath(_ directory: String) -> String { directory + "/postern.sqlite3" }
}

/// Lets a route read the server's open-connection count although the server is built after the routes.
/// Holds the server weakly so that the server → routes → box reference does not keep it alive.
final class ConnectionCountBox: @unchecked Sendable {  // `server` is only touched under `lock`.
    private let lock = NSLock()
    private weak var server: HTTPServer?

    func attach(_ server: HTTPServer) { lock.withLock { self.server = server } }

    func count() -> Int { lock.withLock { server?.openConnectionCount ?? 0 } }
}

/// Runs an async job every `interval` until stopped (the challenge-ledger purge).
final class PeriodicTask: Sendable {
    private let interval: Duration
    private let job: @Sendable () async -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(every interval: Duration, _ job: @escaping @Sendable () async -> Void) {
        self.interval = interval
        self.job = job
    }

    func start() {
        let interval = interval
        let job = job
        task.withLock { current in
            current?.cancel()
            current = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    if Task.isCancelled { break }
                    await job()
                }
            }
        }
    }

    func stop() { task.withLock { $0?.cancel(); $0 = nil } }
}
