import Foundation
import Testing

@testable import PosternApp

/// The command line explains itself: a version, and each subcommand's help lists only its own options.
@Suite("postern command line help")
struct CommandLineHelpTests {
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("--version prints the one version string the build carries")
    func version() throws {
        let (status, output) = try run(["--version"])
        #expect(status == 0)
        #expect(output == PosternVersion.text + "\n", "\(output)")
        #expect(output.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(output)")
    }

    @Test("a command that runs and fails prints its error alone and exits 1; a wrong command line prints usage, 64")
    func exitCodes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("postern-cli-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try run(["migrate", "--data-dir", directory]).status == 0)
        let (failed, failure) = try run([
            "web", "link", "--address", "nobody@agents.localhost", "--data-dir", directory,
        ])
        #expect(failed == 1, "\(failure)")
        #expect(failure.contains("no local mailbox holds mail for 'nobody@agents.localhost'"), "\(failure)")
        #expect(!failure.contains("Usage:") && !failure.contains("--help"), "\(failure)")
        let (usage, text) = try run(["mail", "list", "--limit", "0", "--data-dir", directory])
        #expect(usage == 64, "\(text)")
        #expect(text.contains("Usage:"), "\(text)")
    }

    @Test("operator commands do not offer the listen flags; serve does", arguments: [
        ["migrate"], ["keys", "list"], ["keys", "rotate"], ["backup"], ["pro", "create"], ["pro", "list"],
        ["agent", "revoke"], ["agent", "list"], ["owner", "set-password"], ["pro", "set-password"], ["audit"],
    ])
    func operatorHelp(_ command: [String]) throws {
        let (status, output) = try run(command + ["--help"])
        #expect(status == 0)
        #expect(output.contains("--data-dir"))
        #expect(!output.contains("--host <"), "\(command) offers --host")
        #expect(!output.contains("--port <"), "\(command) offers --port")
    }

    @Test("every command that takes a password offers standard input and a file besides --password", arguments: [
        ["owner", "create"], ["owner", "set-password"], ["pro", "create"], ["pro", "set-password"],
    ])
    func passwordSources(_ command: [String]) throws {
        let (status, output) = try run(command + ["--help"])
        #expect(status == 0)
        #expect(output.contains("--password-stdin") && output.contains("--password-file") && output.contains("--password "))
    }

    @Test("audit offers --since, --owner and --limit")
    func auditHelp() throws {
        let (status, output) = try run(["audit", "--help"])
        #expect(status == 0)
        #expect(output.contains("--since") && output.contains("--owner") && output.contains("--limit"), "\(output)")
    }

    @Test("serve offers the listen flags")
    func serveHelp() throws {
        let (_, output) = try run(["serve", "--help"])
        #expect(output.contains("--host") && output.contains("--port") && output.contains("--data-dir"))
    }
}
