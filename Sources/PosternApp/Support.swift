import EmbeddedResources
import Foundation
import HTTPServer
import Logging
import PostgresClient
import Storage
import Synchronization

/// Layout of the data directory: `postern.sqlite3` (and `keys/`, which `KeyStore` owns).
package enum DataDirectory {
    /// Creates the directory, and missing parents, with mode 0700 whatever the umask. An existing directory is
    /// left as it is (its mode is the operator's), but one that group or others may read, enter or write is named
    /// in a warning: the files Postern writes there are 0600, yet their names and sizes show, and a group that
    /// may write there may replace them.
    /// - Parameter logger: receives the warning; nil for none (when another call warned already).
    package static func prepare(_ path: String, logger: Logger? = nil) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            let mode = info.st_mode & 0o777
            if mode & 0o077 != 0 {
                logger?.warning(
                    "data directory is open to group or others; make it 0700",
                    metadata: ["directory": "\(path)", "mode": "0\(String(mode, radix: 8))"])
            }
            return
        }
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard chmod(path, 0o700) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// The SQLite database file.
    static func databasePath(_ directory: String) -> String { directory + "/postern.sqlite3" }
}

extension Migrator {
    /// The migrator over the migrations compiled into this binary for `dialect` (`migrations/<dialect>/*.sql`
    /// when it was built): `serve` and the operator commands read no migrations directory. `clock` stamps
    /// `applied_at`.
    static func shipped(for dialect: SQLDialect, clock: WallClock = .system) -> Migrator {
        Migrator(migrations: EmbeddedResources.migrations(for: dialect), now: clock.secondsReader)
    }
}

/// The database of a configuration, for `serve` and the operator commands alike.
package enum DatabaseOpener {
    /// Opens the configured database: the SQLite file (its directory made when missing: the data directory
    /// unless `sqlite:///` names another) with `readers` reading connections, or PostgreSQL with
    /// `POSTERN_DATABASE_CONNECTIONS` connections.
    static func open(_ configuration: PosternConfiguration, readers: Int, logger: Logger) throws -> any SQLDatabase {
        switch try configuration.storage.database() {
        case .sqlite(let path):
            try DataDirectory.prepare((path as NSString).deletingLastPathComponent, logger: logger)
            return try Database.open(path: path, readerCount: readers, logger: logger)
        case .postgres(let url):
            return try PostgresDatabase(
                url: url, count: configuration.storage.databaseConnections,
                commitTimeout: .seconds(configuration.storage.commitTimeoutSeconds),
                requireSynchronousStandby: configuration.storage.requireSynchronousStandby,
                loopReactor: configuration.storage.postgresLoopReads ? LoopDescriptorReactor.current : nil,
                logger: logger)
        }
    }

    /// `open`, then every shipped migration of its dialect; returns the database and the names applied.
    package static func migrated(
        _ configuration: PosternConfiguration, readers: Int, logger: Logger, clock: WallClock = .system
    ) throws -> (database: any SQLDatabase, applied: [String]) {
        let database = try open(configuration, readers: readers, logger: logger)
        do {
            return (database, try Migrator.shipped(for: database.dialect, clock: clock).migrate(database))
        } catch {
            database.close()
            throw error
        }
    }
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

/// Whether the runtime is draining (``PosternRuntime/beginDraining()``), read by `/readyz` on every check.
final class DrainFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
