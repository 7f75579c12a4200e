import EmbeddedResources
import Foundation
import HTTPServer
import Storage
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

extension Migrator {
    /// The migrator over the migrations compiled into this binary (`migrations/sqlite/*.sql` when it was built):
    /// `serve` and the operator commands read no migrations directory.
    static var shipped: Migrator { Migrator(migrations: EmbeddedResources.migrations) }
}

/// Lets a route read the server's open-connection count although the server is built after the routes.
/// Holds the server weakly so that the server → routes → box reference does not keep it alive.
final class ConnectionCountBox: Sendable {
    private struct WeakServer {
        weak var server: HTTPServer?
    }

    private let server = Mutex(WeakServer())

    func attach(_ server: HTTPServer) { self.server.withLock { $0.server = server } }

    func count() -> Int { server.withLock { $0.server?.openConnectionCount ?? 0 } }
}
