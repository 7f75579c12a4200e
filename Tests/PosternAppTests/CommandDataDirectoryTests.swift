import Foundation
import Testing

@testable import PosternApp
@testable import PosternOperations

/// A command that reads a data directory never makes one; the commands that make the first things in one say so, and
/// every command names the directory it read when no server runs there (issue 68: `owner list` without `--data-dir`
/// made an empty `./data`, printed nothing and exited 0).
@Suite("Operator commands: no data directory made by a command that reads")
struct CommandDataDirectoryTests {
    /// Runs the binary with `arguments` in `directory`, without any `POSTERN_*` variable (so `./data` is the default).
    static func run(_ arguments: [String], in directory: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("POSTERN_") { environment[key] = nil }
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// A new empty directory, removed by the caller.
    static func emptyDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("postern-cwd-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    @Test(
        "each command that reads, run without --data-dir where no data is, fails naming ./data and makes nothing",
        arguments: [
            ["owner", "list"], ["owner", "show", "--email", "a@example.com"], ["pro", "list"], ["agent", "list"],
            ["agent", "revoke", "--username", "someone"], ["keys", "list"], ["keys", "rotate"], ["audit"],
            ["mail", "list"], ["mail", "show", "0"], ["mail", "outbox"], ["mail", "queue"],
            ["mail", "tls-reset", "example.org"], ["oidc", "show"], ["dkim", "show", "--domain", "example.org"],
            ["web", "link", "--all"], ["backup", "--to", "backup.tar"],
        ])
    func readingMakesNothing(_ command: [String]) throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try Self.run(command, in: directory)
        #expect(run.status == 1, "\(command): \(run.stdout) \(run.stderr)")
        #expect(
            run.stderr.contains("no Postern data in \(directory)/data: this command reads a data directory and makes none"),
            "\(command): \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [], "\(command) left files")
    }

    @Test("owner create makes ./data and says so; a command that reads it then names it: no server is running there")
    func creatingSaysSo() throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let created = try Self.run(
            ["owner", "create", "--email", "ann@example.com", "--password", "long enough"], in: directory)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr.contains("made a new data directory, \(directory)/data (none was there)"), "\(created.stderr)")
        let listed = try Self.run(["owner", "list"], in: directory)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("ann@example.com"), "\(listed.stdout)")
        #expect(listed.stderr.contains("read \(directory)/data; no server is running there"), "\(listed.stderr)")
    }

    @Test("a command with --ports-file reads the data directory the running server's record names, and says nothing more")
    func portsFileNamesTheDirectory() throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = directory + "/elsewhere"
        _ = try Self.run(["migrate", "--data-dir", data], in: directory)
        let portsFile = directory + "/ports.json"
        // The record a running server writes: this test process stands for it (its pid is alive).
        let line = #"{"http":"http://127.0.0.1:1","data_dir":"\#(data)","pid":\#(getpid())}"#
        try RunningServerRecord.writeWhole(Array(line.utf8), to: portsFile)
        try RunningServerRecord.write(Array(line.utf8), dataDirectory: data)
        let listed = try Self.run(["owner", "list", "--ports-file", portsFile], in: directory)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(!listed.stderr.contains("no server is running"), "\(listed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data"))
    }
}
