import Foundation

/// Python run from the tests: a script under `Tests/` (a browser test, a client) to its end, with its exit status and
/// everything it printed; or a snippet (smtplib and friends) fed on standard input.
enum PythonScript {
    /// Runs `Tests/<path>` with `arguments`, `POSTERN_ARTIFACTS` set to the repository's `artifacts/` and
    /// `environment` on top of this process's.
    static func run(_ path: String, arguments: [String] = [], environment extra: [String: String] = [:]) async throws
        -> (status: Int32, log: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", ServeProcessTests.repository.appendingPathComponent("Tests/" + path).path]
            + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_ARTIFACTS"] = ServeProcessTests.repository.appendingPathComponent("artifacts").path
        environment.merge(extra) { $1 }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Waiting blocks: keep it off the cooperative pool that an in-process server's handlers need.
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let log = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: log, as: UTF8.self)))
            }
        }
    }

    /// Runs `Tests/<path>`, a script that starts the built `postern serve` of its own (`POSTERN_BIN`), to its end.
    static func runServing(_ path: String) async throws -> (status: Int32, log: String) {
        try await run(path, environment: ["POSTERN_BIN": ServeProcessTests.executable.path])
    }

    /// Runs the Python 3 snippet `script` (the tests' client: smtplib and friends) with `arguments`, feeding it
    /// `input` on standard input; returns its standard output, trimmed.
    static func snippet(_ script: String, arguments: [String], input: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let stdin = Pipe()
        let output = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        try process.run()
        // The client blocks on the server: keep the wait off the cooperative pool an in-process server's handlers need
        // (on two cores, two blocked test threads starved the server and every client timed out).
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    stdin.fileHandleForWriting.write(Data(input.utf8))
                    try stdin.fileHandleForWriting.close()
                    let data = output.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                })
            }
        }
    }
}
