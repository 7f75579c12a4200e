import Foundation
import PostgresClient
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server for the tests (`scripts/pg-temp`): ``shared()`` is started on first use,
/// once per test process, on a free loopback port in a temporary directory that is removed when the process
/// exits, unless `POSTERN_TEST_POSTGRES_URL` names one (`make test` starts one server for the test processes it
/// runs side by side); each test takes a database of its own with ``freshDatabase()``, named after its process.
/// A test that stops or restarts the server takes a ``dedicated()`` one, so that tests running beside it keep theirs.
public final class PostgresTestServer: Sendable {
    /// The `postern` database's URL.
    public let url: String
    /// The server's directory: nil for the one `POSTERN_TEST_POSTGRES_URL` names, which this process may not stop.
    private let directory: String?
    private let counter = Atomic<Int>(0)
    /// The templates this process knows exist (``template(named:copying:build:)``).
    let templatesMade = Mutex<Set<String>>([])

    private static let started = Mutex<Result<PostgresTestServer, any Error>?>(nil)
    private static let directoriesAtExit = Mutex<[String]>([])

    private init(url: String, directory: String?) {
        self.url = url
        self.directory = directory
    }

    /// The process's server: the one `POSTERN_TEST_POSTGRES_URL` names, else one started the first time.
    public static func shared() throws -> PostgresTestServer {
        try started.withLock { result in
            if let result { return try result.get() }
            let given = ProcessInfo.processInfo.environment["POSTERN_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
            let made = Result { try given.map { PostgresTestServer(url: $0, directory: nil) } ?? start() }
            result = made
            return try made.get()
        }.self
    }

    /// A server of the caller's own (stopped and removed when the process exits).
    public static func dedicated() throws -> PostgresTestServer {
        try start()
    }

    private static func start() throws -> PostgresTestServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("postern-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let first = directoriesAtExit.withLock { directories in
            directories.append(directory)
            return directories.count == 1
        }
        if first { atexit { PostgresTestServer.destroyAtExit() } }
        let url = try script("start", directory).trimmingCharacters(in: .whitespacesAndNewlines)
        return PostgresTestServer(url: url, directory: directory)
    }

    /// A new, empty database on the server; its URL. A test that needs the shipped schema takes
    /// ``migratedDatabase()``, a copy of it.
    public func freshDatabase() throws -> String {
        let name = nextDatabaseName()
        let admin = try PostgresConnection(url: url)
        try admin.execute("CREATE DATABASE \(name)")
        return databaseURL(name)
    }

    /// A database name no other test process or test of this one takes. On the server `POSTERN_TEST_POSTGRES_URL`
    /// names, the database is dropped when the process exits: `make test`'s one server would otherwise keep every
    /// test's copy (some 9 MB each, hundreds of them) until the end of the run.
    func nextDatabaseName() -> String {
        let name = "t\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)"
        if directory == nil {
            let first = Self.databasesAtExit.withLock { databases in
                databases.append((url, name))
                return databases.count == 1
            }
            if first { atexit { PostgresTestServer.dropAtExit() } }
        }
        return name
    }

    /// The URL of the database `name` on this server.
    func databaseURL(_ name: String) -> String {
        url.replacingOccurrences(of: "/postern", with: "/\(name)")
    }

    /// Stops the server and starts it again on the same port (every connection is cut).
    public func restart() throws {
        _ = try Self.script("restart", owned())
    }

    /// Stops the server (connections fail until ``startAgain()``).
    public func stop() throws {
        _ = try Self.script("stop", owned())
    }

    /// Starts a stopped server again.
    public func startAgain() throws {
        _ = try Self.script("start", owned())
    }

    private func owned() throws -> String {
        guard let directory else {
            throw ScriptFailed(description: "the server POSTERN_TEST_POSTGRES_URL names is not this process's to stop")
        }
        return directory
    }

    /// The databases this process made on a server it did not start, with that server's URL.
    private static let databasesAtExit = Mutex<[(url: String, name: String)]>([])

    /// Drops them, ending any session still on them (the process is exiting: its servers' pools are not closed).
    private static func dropAtExit() {
        let databases = databasesAtExit.withLock { $0 }
        guard let url = databases.first?.url, let admin = try? PostgresConnection(url: url) else { return }
        for (_, name) in databases { try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }

    private static func destroyAtExit() {
        for directory in directoriesAtExit.withLock({ $0 }) { _ = try? script("destroy", directory) }
    }

    private static let pgTemp = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/pg-temp").path

    private struct ScriptFailed: Error, CustomStringConvertible {
        let description: String
    }

    @discardableResult
    private static func script(_ command: String, _ directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: pgTemp)
        process.arguments = [command, directory]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ScriptFailed(description: "scripts/pg-temp \(command) failed: \(failure)")
        }
        return text
    }
}
