import Foundation

/// A Python test script under `Tests/` (a browser test, a client), run to its end: its exit status and everything it
/// printed.
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
}
