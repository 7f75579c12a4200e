import AgentAuth
import AgentClient
import Foundation
import Logging
import MailboxAccounts
import PosternTestSupport
import Storage
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern backup` and `postern restore`: a restored data directory answers every token and key given out before
/// the backup, because the archive carries the signing keys with the database.
@Suite("Backup and restore on SQLite", .serialized)
struct BackupRestoreTests {
    let logger = Logger(label: "backup-tests")

    static func scratch(_ name: String) -> String {
        NSTemporaryDirectory() + "postern-\(name)-" + UUID().uuidString
    }

    /// What a server gave out before its backup.
    struct Issued {
        var mailboxID = ""
        var mailboxToken = ""
        var apiKey = ""
        var remoteToken = ""
    }

    func issue(on server: TestServer) async throws -> Issued {
        let client = try server.client()
        var issued = Issued()
        let challenge = try await client.request("GET", "/api/challenge").json()
        let pow: [String: Any] = [
            "id": try #require(challenge["id"] as? String),
            "nonce": ProofOfWork.solve(
                salt: try #require(challenge["salt"] as? String), difficulty: try #require(challenge["difficulty"] as? Int)),
        ]
        let account = try await client.json(
            "POST", "/api/accounts", ["address": "kept@mail.localhost", "password": "hunter22", "pow": pow])
        #expect(account.status == 201)
        issued.mailboxID = try #require(try account.json()["id"] as? String)
        issued.mailboxToken = try #require(try account.json()["token"] as? String)

        let signup = try await agentSession(client, ["username": "kept-agent"])
        #expect(signup.status == 201)
        issued.apiKey = try #require(try signup.json()["apiKey"] as? String)

        let json = [("Accept", "application/json")]
        let registered = try await client.json(
            "POST", "/register",
            [
                "email": "kept@example.com", "password": "test123",
                "password_hash_url": "http://127.0.0.1:\(server.port)/example.txt",
            ], headers: json)
        #expect(registered.status == 201)
        let login = try await client.json(
            "POST", "/login", ["email": "kept@example.com", "password": "test123"], headers: json)
        #expect(login.status == 200)
        issued.remoteToken = try #require(try login.json()["token"] as? String)
        return issued
    }

    /// A challenge, its proof, and `POST /api/v1/session` with `fields`.
    func agentSession(_ client: TestHTTPClient, _ fields: [String: String]) async throws -> TestResponse {
        let response = try await client.request("POST", "/api/v1/challenge")
        let jwt = try #require(response.bearer)
        let jti = try #require(try response.json()["challenge"] as? String)
        let bits = try #require(try response.json()["difficulty"] as? Int)
        let solution = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try AgentPoWSolver().solve(challenge: jti, salt: AgentAuthConfiguration.defaultPoWSalt, difficulty: bits)
                })
            }
        }
        var body: [String: Any] = ["powHex": solution.powHex, "nonce": String(solution.nonce)]
        for (key, value) in fields { body[key] = value }
        return try await client.json("POST", "/api/v1/session", body, headers: [("Authorization", "Bearer \(jwt)")])
    }

    /// The old Mail.td token, remote-hash token and agent API key of `issued` all work on `server`.
    func expectAnswered(_ issued: Issued, by server: TestServer) async throws {
        let client = try server.client()
        let account = try await client.request(
            "GET", "/api/accounts/\(issued.mailboxID)", headers: [("Authorization", "Bearer \(issued.mailboxToken)")])
        #expect(account.status == 200)
        let validated = try await client.json(
            "POST", "/validate", ["token": issued.remoteToken], headers: [("Accept", "application/json")])
        #expect(validated.status == 200)
        #expect(try validated.json()["valid"] as? Bool == true)
        #expect(try await agentSession(client, ["apiKey": issued.apiKey]).status == 200)
    }

    @Test("restored into a new data directory on a new port: an old Mail.td token, remote-hash token and API key work")
    func roundTrip() async throws {
        let first = try await TestServer.start(.sqlite)
        let issued = try await issue(on: first)
        let archive = Self.scratch("backup") + ".tar"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        try Operations.backup(configuration: first.runtime.configuration, to: archive, logger: logger)
        await first.stop()
        #expect(fileMode(archive) == 0o600)

        let restored = Self.scratch("restored")
        try Operations.restore(from: archive, dataDirectory: restored, logger: logger)
        let second = try await TestServer.start(.sqlite) { $0.storage.dataDirectory = restored }
        defer { Task { await second.stop() } }
        try await expectAnswered(issued, by: second)
    }

    @Test("an archive lists with tar and holds the manifest, database and keys")
    func tarListsIt() async throws {
        let server = try await TestServer.start(.sqlite)
        defer { Task { await server.stop() } }
        let archive = Self.scratch("backup") + ".tar"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        try Operations.backup(configuration: server.runtime.configuration, to: archive, logger: logger)
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-tf", archive]
        let output = Pipe()
        tar.standardOutput = output
        try tar.run()
        let listing = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tar.waitUntilExit()
        #expect(tar.terminationStatus == 0)
        let names = listing.split(separator: "\n").map(String.init)
        #expect(names.first == "postern.sqlite3" && names.last == "manifest.json")
        #expect(names.contains("keys/keys.json") && names.filter { $0.hasPrefix("keys/") }.count >= 4)
        #expect(throws: ConfigurationError.self) {
            try Operations.backup(configuration: server.runtime.configuration, to: archive, logger: logger)
        }
    }

    /// Restores `archive` into a new directory, expecting a refusal that leaves the directory absent.
    func refusal(restoring archive: String) -> ConfigurationError? {
        let target = Self.scratch("refused")
        let error = #expect(throws: ConfigurationError.self) {
            try Operations.restore(from: archive, dataDirectory: target, logger: logger)
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        return error
    }

    @Test("an archive of a newer schema is refused, and nothing is left in the data directory")
    func newerSchemaRefused() throws {
        let archive = Self.scratch("newer") + ".tar"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        let writer = try BackupArchiveWriter(creating: archive, modifiedAt: 0)
        try writer.add(
            "manifest.json",
            bytes: Array(#"{"format":"postern-backup","format_version":1,"schema_version":9999,"files":[]}"#.utf8))
        try writer.finish()
        #expect(refusal(restoring: archive)?.message.contains("newer") == true)
    }

    @Test("a damaged database entry is refused against the manifest")
    func damagedRefused() async throws {
        let server = try await TestServer.start(.sqlite)
        defer { Task { await server.stop() } }
        let archive = Self.scratch("damaged") + ".tar"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        try Operations.backup(configuration: server.runtime.configuration, to: archive, logger: logger)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: archive)))
        bytes[BackupArchive.blockSize + 200] ^= 0xff  // inside postern.sqlite3, the first entry
        try Data(bytes).write(to: URL(fileURLWithPath: archive))
        #expect(refusal(restoring: archive)?.message.contains("postern.sqlite3") == true)
    }

    @Test("a database that holds accounts meeting newly generated keys is named in a warning at start")
    func lostKeysWarned() async throws {
        let first = try await TestServer.start(.sqlite)
        _ = try await issue(on: first)
        let copy = Self.scratch("copied")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try Operations.backupDatabaseOnly(first, to: copy + "/postern.sqlite3", logger: logger)
        await first.stop()
        let capture = DataDirectoryTests.Capture()
        let second = try await TestServer.start(
            .sqlite, { $0.storage.dataDirectory = copy }, logger: DataDirectoryTests.logger(capture))
        await second.stop()
        #expect(capture.text.contains("new signing keys were generated for a database that holds accounts"))

        let fresh = DataDirectoryTests.Capture()
        let empty = try await TestServer.start(.sqlite, logger: DataDirectoryTests.logger(fresh), freshKeys: true)
        await empty.stop()
        #expect(!fresh.text.contains("new signing keys were generated"))
    }
}

extension Operations {
    /// The old way of backing up, for the warning's test: the database file alone.
    static func backupDatabaseOnly(_ server: TestServer, to path: String, logger: Logger) throws {
        let database = try Database.open(
            path: DataDirectory.databasePath(server.dataDirectory), readerCount: 1, logger: logger)
        defer { database.close() }
        try database.backup(to: path)
    }
}

/// docs/postgres.md's procedure: `pg_dump` of a serving database restored into a new one answers every token given
/// out before, with the same `POSTERN_KEY_SECRET`; with another secret the keys cannot be opened and the server does
/// not start.
@Suite("PostgreSQL backup with pg_dump", .onPostgres, .serialized)
struct PostgresDumpRestoreTests {
    let helper = BackupRestoreTests()

    /// Runs `tool` with `arguments` (from PostgreSQL's client programs); throws on a non-zero exit.
    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool): \(message)")
    }

    @Test("pg_dump, pg_restore into a new database, the same key secret: old tokens and API keys still work")
    func dumpAndRestore() async throws {
        let first = try await TestServer.start(.postgres)
        let issued = try await helper.issue(on: first)
        let source = try #require(first.runtime.configuration.storage.databaseURL)
        let dump = BackupRestoreTests.scratch("pgdump") + ".dump"
        defer { try? FileManager.default.removeItem(atPath: dump) }
        try Self.run("pg_dump", ["--format=custom", "--file=\(dump)", source])
        await first.stop()
        let target = try PostgresTestServer.shared().freshDatabase()
        try Self.run("pg_restore", ["--no-owner", "--dbname=\(target)", dump])

        let other = await #expect(throws: (any Error).self) {
            _ = try await TestServer.start(.postgres) {
                $0.storage.databaseURL = target
                $0.signingKeys.secret = "another secret than the dump's"
            }
        }
        #expect(other != nil, "a server with another POSTERN_KEY_SECRET started on the restored keys")

        let second = try await TestServer.start(.postgres) { $0.storage.databaseURL = target }
        defer { Task { await second.stop() } }
        try await helper.expectAnswered(issued, by: second)
    }
}
