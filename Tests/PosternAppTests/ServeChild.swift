import Foundation
import Glibc
import Synchronization

/// A `postern serve` child process, its output collected all along (a server blocked on a full pipe would
/// look like a hung one), and the port it printed in its `listening on` line.
final class ServeChild {
    let process = Process()
    let port: Int
    private let pipe = Pipe()
    private let text = OutputText()

    /// Starts the process and waits up to 60 s for its port (a debug build migrating a fresh database on a machine
    /// busy with builds has taken more than 20).
    /// - Throws: ``ServeChildError/noPort(_:)`` with the output when no port was printed.
    init(
        executable: URL, arguments: [String], environment: [String: String], workingDirectory: URL? = nil
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let text = self.text
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            text.state.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
        }
        var found: Int?
        let deadline = Date().addingTimeInterval(60)
        while found == nil, Date() < deadline, process.isRunning {
            found = text.state.withLock { text in
                text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression).flatMap {
                    Int(text[$0].split(separator: ":").last ?? "")
                }
            }
            if found == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        port = found ?? 0
        if found == nil {
            terminate()
            throw ServeChildError.noPort(output())
        }
    }

    var isRunning: Bool { process.isRunning }

    /// The last 2000 characters of output.
    func output() -> String { text.state.withLock { String($0.suffix(2000)) } }

    /// SIGTERM and the exit status.
    func stop() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL when still running; stops collecting output.
    func terminate() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        pipe.fileHandleForReading.readabilityHandler = nil
    }
}

/// The server's output so far, appended from the pipe's handler thread.
private final class OutputText: Sendable {
    let state = Mutex("")
}

enum ServeChildError: Error {
    /// The process printed no port; its output.
    case noPort(String)
}
