import EmbeddedResources
import Foundation
import Glibc
import Logging
import PosternTestSupport
import Storage
import Testing

/// The `postern` binary copied alone into an empty directory and started there, with no config file, no
/// migrations directory and no Postern setting in its environment: `serve --port 0 --smtp-port 0
/// --sandbox-smtp-port 0 --data-dir D` must migrate and serve. Also as an unprivileged user, as a service account runs
/// it. Every listener on by default gets a free port from its flag, so that a server of the developer's own on the
/// default ports (`make run`) does not fail the test.
@Suite("postern serve from any directory")
struct ServeAnywhereTests {
    /// The uid and gid of `nobody`, which the unprivileged run switches to.
    static let nobody: UInt32 = 65534

    /// What one run saw.
    struct Run {
        var readiness: TestResponse
        var openAPI: TestResponse
        var status: Int32
        var output: String
        /// What the directory held once the server stopped.
        var directoryContents: [String]
        /// `schema_migrations` names in the database the server created.
        var appliedMigrations: [String]
        /// The owner of the data directory the server created.
        var dataOwner: UInt32?
    }

    /// A new directory under the temporary directory holding only a copy of the built binary.
    private static func directoryWithBinaryOnly() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("postern-anywhere-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: ServeProcessTests.executable, to: directory.appendingPathComponent("postern"))
        return directory
    }

    /// Runs `[launcher...] <directory>/postern serve --port 0 --smtp-port 0 --sandbox-smtp-port 0 --data-dir
    /// <directory>/data` in `directory` with no Postern setting in the environment, asks it `/readyz` and `/openapi.json`, stops it with SIGTERM
    /// and reads the database it migrated.
    private static func serve(in directory: URL, launcher: [String] = []) throws -> Run {
        let binary = directory.appendingPathComponent("postern")
        let data = directory.appendingPathComponent("data")
        let environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("POSTERN_") && !$0.key.hasPrefix("JWT_")
        }
        let arguments = [
            "serve", "--port", "0", "--smtp-port", "0", "--sandbox-smtp-port", "0", "--data-dir", data.path,
        ]
        let child = try ServeChild(
            executable: launcher.isEmpty ? binary : URL(fileURLWithPath: launcher[0]),
            arguments: launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [binary.path] + arguments,
            environment: environment, workingDirectory: directory)
        defer { child.terminate() }
        let client = try TestHTTPClient(port: child.port)
        let readiness = try client.requestBlocking("GET", "/readyz", headers: [], body: [])
        let openAPI = try client.requestBlocking("GET", "/openapi.json", headers: [], body: [])
        let status = child.stop()
        let owner = try FileManager.default.attributesOfItem(atPath: data.path)[.ownerAccountID] as? NSNumber
        let database = try Database.open(
            path: data.appendingPathComponent("postern.sqlite3").path, readerCount: 1,
            logger: Logger(label: "serve-anywhere"))
        let applied = try database.readSync { try $0.query("SELECT name FROM schema_migrations ORDER BY version") }
        return Run(
            readiness: readiness, openAPI: openAPI, status: status, output: child.output(),
            directoryContents: try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
            appliedMigrations: applied.compactMap { $0.text("name") }, dataOwner: owner?.uint32Value)
    }

    /// Blocking process and socket work, off the cooperative pool.
    private static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The checks every run must pass.
    private static func expectServed(_ run: Run) {
        #expect(run.readiness.status == 200, "\(run.output)")
        #expect(run.readiness.text == #"{"status":"ready"}"#)
        #expect(run.openAPI.status == 200, "\(run.output)")
        #expect((try? run.openAPI.json())?["openapi"] as? String == "3.1.0")
        #expect(run.status == 0, "exit \(run.status): \(run.output)")
        #expect(run.appliedMigrations == EmbeddedResources.migrations.map(\.name))
        #expect(!run.appliedMigrations.isEmpty)
        // Nothing else was read from or written to the working directory.
        #expect(run.directoryContents == ["data", "postern"])
    }

    @Test("copied alone into an empty directory and started there with only --data-dir, it migrates and serves")
    func servesFromEmptyDirectory() async throws {
        let directory = try Self.directoryWithBinaryOnly()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await Self.offload { try Self.serve(in: directory) }
        Self.expectServed(run)
        #expect(run.dataOwner == getuid())
    }

    @Test("the same as an unprivileged user (uid and gid 65534, no groups) in a directory it owns")
    func servesUnprivileged() async throws {
        guard getuid() == 0 else {
            try Test.cancel("needs root to switch to uid \(Self.nobody); this run is uid \(getuid())")
        }
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else {
            try Test.cancel("\(setpriv) (util-linux) is not installed, so the run cannot switch users")
        }
        let directory = try Self.directoryWithBinaryOnly()
        defer { try? FileManager.default.removeItem(at: directory) }
        if let closed = Self.ancestorClosedToOthers(directory) {
            try Test.cancel("uid \(Self.nobody) cannot reach \(directory.path): \(closed) is not searchable by others")
        }
        #expect(chown(directory.path, Self.nobody, Self.nobody) == 0, "chown: \(String(cString: strerror(errno)))")
        let run = try await Self.offload {
            try Self.serve(
                in: directory,
                launcher: [setpriv, "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups"])
        }
        Self.expectServed(run)
        #expect(run.dataOwner == Self.nobody, "the server did not run as uid \(Self.nobody)")
    }

    /// The first ancestor of `url` that others may not search (x bit), or nil when all may.
    private static func ancestorClosedToOthers(_ url: URL) -> String? {
        var current = url.deletingLastPathComponent()
        while true {
            var info = stat()
            if stat(current.path, &info) != 0 || info.st_mode & S_IXOTH == 0 { return current.path }
            if current.path == "/" { return nil }
            current = current.deletingLastPathComponent()
        }
    }
}
