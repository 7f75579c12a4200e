import Foundation
import Testing

/// `postern serve --profile test` as a test suite's fixture starts it: no other setting, one JSON line naming what
/// was bound (also in `--ports-file`), a temporary data directory that is gone after SIGTERM.
@Suite("postern serve --profile test")
struct ServeProfileTests {
    @Test("the JSON line names every bound listener and the data directory, which SIGTERM removes")
    func jsonLineAndTemporaryDirectory() async throws {
        let portsFile = NSTemporaryDirectory() + "postern-ports-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: portsFile) }
        let (line, fileText, dataDirectory, status, links) = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.run(portsFile: portsFile) })
            }
        }
        let bound = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(fileText == line + "\n")
        let http = try #require(bound["http"] as? String)
        #expect(http.hasPrefix("http://127.0.0.1:") && !http.hasSuffix(":8080"))
        #expect((bound["smtp"] as? String)?.hasPrefix("127.0.0.1:") == true)
        #expect((bound["sandbox"] as? String)?.hasPrefix("127.0.0.1:") == true)
        #expect(dataDirectory.hasPrefix(NSTemporaryDirectory()) && dataDirectory.contains("postern-test-"))
        #expect(status == 0)
        #expect(!FileManager.default.fileExists(atPath: dataDirectory), "the temporary data directory stayed")
        // `postern web link` names this server, found by its ports file or by the record in its data directory.
        #expect(links.count == 2)
        for link in links {
            #expect(link.hasPrefix(http + "/inbox/link/"), "\(link)")
        }
    }

    /// Starts the binary from an empty directory (no config file) with only the profile, reads the JSON line,
    /// checks the server answers there, stops it with SIGTERM.
    private static func run(portsFile: String) throws -> (String, String, String, Int32, [String]) {
        let empty = NSTemporaryDirectory() + "postern-cwd-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments = ["serve", "--profile", "test", "--ports-file", portsFile]
        process.currentDirectoryURL = URL(fileURLWithPath: empty)
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("POSTERN_") { environment[key] = nil }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("}\n"), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("{") }.map { String($0) }, "\(text)")
        let bound = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let http = try #require(bound["http"] as? String)
        let port = try #require(Int(http.split(separator: ":").last ?? ""))
        let health = try TestHTTPClient(port: port).requestBlocking("GET", "/healthz", headers: [], body: [])
        #expect(health.status == 200)
        let fileText = try String(contentsOfFile: portsFile, encoding: .utf8)
        let directory = bound["data_dir"] as? String ?? ""
        let links = try [
            ["web", "link", "--ports-file", portsFile, "--all"],
            ["web", "link", "--data-dir", directory, "--address", "catch-all"],
        ].map { arguments in try Self.output(arguments, in: empty, environment: environment) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return (line, fileText, directory, process.terminationStatus, links)
    }

    /// What the binary prints on standard output for `arguments`, trimmed.
    private static func output(_ arguments: [String], in directory: String, environment: [String: String]) throws
        -> String
    {
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
