import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// `postern agent signup|login` as a user runs it: the binary, against a running server.
@Suite("postern agent commands")
struct AgentCommandTests {
    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    @Test("a username the server would refuse is refused before any request, in the command line's words")
    func usernameFirst() throws {
        // Port 9 (discard) has no server here: a request would fail with "could not reach".
        for (name, words) in [("AB", "is not a valid username"), ("admin", "is a reserved username")] {
            let (status, stdout, stderr) = try run(["agent", "signup", "--url", "http://127.0.0.1:9", "--username", name])
            #expect(status == 1)
            #expect(stdout.isEmpty)
            #expect(stderr.hasPrefix("postern: '\(name)' \(words)"), "\(stderr)")
            #expect(!stderr.contains("could not reach"))
        }
    }

    @Test(
        "--json prints one object with the credentials and nothing else on stdout, the progress on stderr; refusals are in CLI words",
        arguments: StorageBackend.allCases)
    func json(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.agent.baseDifficulty = 2
            $0.agent.dynamicDifficulty = false
        }
        defer { Task { await server.stop() } }
        let url = "http://127.0.0.1:\(server.port)"
        let signup = try run(["agent", "signup", "--url", url, "--username", "jsonagent", "--json"])
        #expect(signup.status == 0, "\(signup.stderr)")
        // The proof of work's progress stays on standard error (issue 68: with --json a slow signup said nothing).
        #expect(signup.stderr.contains("challenge: difficulty 2, about 4 tries expected"), "\(signup.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(signup.stdout.utf8)) as? [String: Any])
        #expect(object["username"] as? String == "jsonagent")
        #expect(object["inbox"] as? String == "jsonagent@agents.localhost")
        let apiKey = try #require(object["api_key"] as? String)
        #expect((object["capability_token"] as? String)?.split(separator: ".").count == 3)
        #expect(object["capability_expires_in"] as? Int == 120)
        #expect(signup.stdout.split(separator: "\n").count == 1)

        let plain = try run(["agent", "login", "--url", url, "--api-key", apiKey])
        #expect(plain.status == 0)
        #expect(plain.stderr.contains("challenge: difficulty 2, about 4 tries expected"), "\(plain.stderr)")
        #expect(plain.stdout.contains("inbox: jsonagent@agents.localhost"))

        let taken = try run(["agent", "signup", "--url", url, "--username", "jsonagent", "--json"])
        #expect(taken.status == 1)
        #expect(taken.stdout.isEmpty)
        #expect(
            taken.stderr.hasSuffix("postern: the username 'jsonagent' is taken; choose another with --username\n"),
            "\(taken.stderr)")
        let unknown = try run(["agent", "login", "--url", url, "--api-key", "postern_ak_nope", "--json"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("the server does not know this API key"), "\(unknown.stderr)")
        let unreachable = try run(["agent", "login", "--url", "http://127.0.0.1:9", "--api-key", apiKey, "--json"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.hasPrefix("postern: could not reach http://127.0.0.1:9"), "\(unreachable.stderr)")
    }
}
