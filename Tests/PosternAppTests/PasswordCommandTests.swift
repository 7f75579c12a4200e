import Foundation
import HTTP1
import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// Passwords reach the operator commands from standard input or a file, not only from the command line where `ps`
/// and shell history keep them; `set-password` ends what the old password opened.
@Suite("Operator passwords: sources and set-password")
struct PasswordCommandTests {
    @Test("exactly one source: none or two are refused in words that name the flags")
    func oneSource() throws {
        for (password, stdin, file) in [(nil, false, nil), ("x", true, nil), (nil, true, "/f"), ("x", false, "/f")]
            as [(String?, Bool, String?)]
        {
            let failure = #expect(throws: PasswordSource.Failure.self) {
                _ = try PasswordSource.choose(password: password, standardInput: stdin, file: file)
            }
            #expect(failure?.description.contains("--password-stdin") == true)
        }
        #expect(try PasswordSource.choose(password: nil, standardInput: true, file: nil) == .standardInput)
    }

    @Test("standard input and a file lose one trailing newline, nothing else; an unreadable file is named")
    func trailingNewline() throws {
        #expect(try PasswordSource.standardInput.read { Data("pass word\n".utf8) } == "pass word")
        #expect(try PasswordSource.standardInput.read { Data("pass word\r\n".utf8) } == "pass word")
        #expect(try PasswordSource.standardInput.read { Data(" pass\n\n".utf8) } == " pass\n")
        #expect(try PasswordSource.standardInput.read { Data("no newline".utf8) } == "no newline")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("postern-password-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("from a file\n".utf8).write(to: file)
        #expect(try PasswordSource.file(file.path).read() == "from a file")
        let missing = #expect(throws: PasswordSource.Failure.self) { _ = try PasswordSource.file(file.path + ".x").read() }
        #expect(missing?.description.contains(file.path + ".x") == true)
    }

    /// Runs the built `postern` on the server's database, `input` on its standard input.
    private func postern(_ arguments: [String], input: String = "", server: TestServer) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let configuration = server.runtime.configuration
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("postern-empty-\(UUID()).env")
        defer { try? FileManager.default.removeItem(at: empty) }
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        let process = Process()
        process.executableURL = ServeProcessTests.executable
        process.arguments = arguments + ["--config", empty.path, "--data-dir", configuration.storage.dataDirectory]
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_DATABASE_URL"] = configuration.storage.databaseURL
        environment["POSTERN_KEY_SECRET"] = configuration.signingKeys.secret
        process.environment = environment
        let stdin = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = stdin
        process.standardOutput = out
        process.standardError = err
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    @Test(
        "pro create reads standard input, pro set-password a file; the old password and its JWTs stop at once",
        arguments: StorageBackend.allCases)
    func proSetPassword(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let created = try postern(
            ["pro", "create", "--email", "ops@example.com", "--password-stdin"], input: "first secret\n", server: server)
        #expect(created.status == 0, "\(created.stderr)")
        let login = try await client.json("POST", "/api/user/login", ["email": "ops@example.com", "password": "first secret"])
        #expect(login.status == 200)
        let jwt = try #require(try login.json()["token"] as? String)
        #expect(try await client.request("GET", "/api/user/me", headers: [("Authorization", "Bearer \(jwt)")]).status == 200)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("postern-password-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("second secret\n".utf8).write(to: file)
        let set = try postern(
            ["pro", "set-password", "--email", "ops@example.com", "--password-file", file.path], server: server)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try await client.request("GET", "/api/user/me", headers: [("Authorization", "Bearer \(jwt)")]).status == 401)
        let old = try await client.json("POST", "/api/user/login", ["email": "ops@example.com", "password": "first secret"])
        #expect(old.status == 401)
        let new = try await client.json("POST", "/api/user/login", ["email": "ops@example.com", "password": "second secret"])
        #expect(new.status == 200)

        let unknown = try postern(
            ["pro", "set-password", "--email", "nobody@example.com", "--password-file", file.path], server: server)
        #expect(unknown.status != 0 && unknown.stderr.contains("no Pro user has email"))
    }

    @Test(
        "owner create and set-password refuse no password source and two of them, changing nothing",
        arguments: StorageBackend.allCases, [
        ["owner", "create", "--email", "ada@example.com"],
        ["owner", "create", "--email", "ada@example.com", "--password", "long enough", "--password-stdin"],
        ["owner", "set-password", "--email", "ada@example.com", "--password-stdin", "--password-file", "/dev/null"],
        ["pro", "create", "--email", "ada@example.com"],
        ["pro", "set-password", "--email", "ada@example.com"],
    ])
    func refusedSources(_ backend: StorageBackend, _ arguments: [String]) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let run = try postern(arguments, input: "long enough\n", server: server)
        #expect(run.status != 0)
        #expect(run.stderr.contains("--password-stdin"), "\(run.stderr)")
        let configuration = server.runtime.configuration, logger = Logger(label: "test")
        #expect(try await Operations.listOwners(configuration: configuration, logger: logger).isEmpty)
        #expect(try await Operations.listProUsers(configuration: configuration, logger: logger).isEmpty)
    }

    @Test(
        "owner set-password from standard input: the new password signs in, the old does not, sessions end",
        arguments: StorageBackend.allCases)
    func ownerSetPassword(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let created = try postern(
            ["owner", "create", "--email", "ada@example.com", "--password-stdin"], input: "first secret\n", server: server)
        #expect(created.status == 0, "\(created.stderr)")
        let client = try server.client()
        let session = try #require(try await OwnerPageSignIn.session(client, "ada@example.com", "first secret"))
        let page = try await client.request("GET", "/owner", headers: [("Cookie", "postern_owner=\(session)")])
        #expect(page.status == 200)

        let set = try postern(
            ["owner", "set-password", "--email", "ADA@example.com", "--password-stdin"], input: "second secret\r\n",
            server: server)
        #expect(set.status == 0, "\(set.stderr)")
        let after = try await client.request("GET", "/owner", headers: [("Cookie", "postern_owner=\(session)")])
        #expect(after.status == 303)
        #expect(try await OwnerPageSignIn.session(client, "ada@example.com", "first secret") == nil)
        #expect(try await OwnerPageSignIn.session(client, "ada@example.com", "second secret") != nil)
        let short = try postern(
            ["owner", "set-password", "--email", "ada@example.com", "--password-stdin"], input: "short\n", server: server)
        #expect(short.status != 0 && short.stderr.contains("characters"))
    }
}

/// Signs an owner in through `/owner/sign-in` as a browser does (CSRF cookie and token first).
enum OwnerPageSignIn {
    /// The session cookie's value, or nil when the sign-in is refused.
    static func session(_ client: TestHTTPClient, _ email: String, _ password: String) async throws -> String? {
        let form = try await client.request("GET", "/owner/sign-in")
        let cookie = try #require(form.header("Set-Cookie")?.split(separator: ";").first.map { String($0) })
        let token = try #require(csrfToken(in: form.text))
        let body = "csrf_token=\(token)&email=\(PercentEncoding.encode(email))&password=\(PercentEncoding.encode(password))"
        let posted = try await client.request(
            "POST", "/owner/sign-in",
            headers: [("Cookie", cookie), ("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8))
        guard posted.status == 303, let set = posted.header("Set-Cookie"), set.hasPrefix("postern_owner=") else {
            return nil
        }
        return String(set.dropFirst("postern_owner=".count).prefix { $0 != ";" })
    }

    /// The hidden `csrf_token` field's value in a page.
    static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: "name=\"csrf_token\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }
}
