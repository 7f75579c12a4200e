import Foundation

/// Runs a real SMTP client (Python's smtplib, swaks) as a child process and collects what it printed.
enum ExternalClient {
    struct Result: Sendable {
        let status: Int32
        let output: String
    }

    /// The first executable `name` on `PATH`, or nil.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether swaks is installed (`scripts/bootstrap --test` installs it).
    static let hasSwaks = find("swaks") != nil

    /// Runs `executable` with `arguments` on a plain thread (off Swift's cooperative pool, where the
    /// sink runs), with stdout and stderr together.
    static func run(_ executable: String, _ arguments: [String]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Swift.Result {
                        let process = Process()
                        process.executableURL = URL(fileURLWithPath: find(executable) ?? executable)
                        process.arguments = arguments
                        let pipe = Pipe()
                        process.standardOutput = pipe
                        process.standardError = pipe
                        process.standardInput = FileHandle.nullDevice
                        try process.run()
                        let output = pipe.fileHandleForReading.readDataToEndOfFile()
                        process.waitUntilExit()
                        return Result(
                            status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
                    })
            }
        }
    }

    /// Runs `script` with `python3 -c`, the port as its first argument.
    static func python(_ script: String, port: Int) async throws -> Result {
        try await run("python3", ["-c", script, String(port)])
    }
}
