import Audit
import Foundation
import Logging
import PosternTestSupport
import Storage
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern audit` and the operator's own events, on the backend under test; `POSTERN_AUDIT_DAYS`.
@Suite("Operator commands: the audit trail")
struct AuditCommandTests {
    private let logger = Logger(label: "audit-command-test")

    @Test(
        "operator commands record operator.command, keys.rotated and keys.retired, never a password",
        arguments: StorageBackend.allCases)
    func operatorEvents(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        let ada = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        #expect(
            try await Operations.setOwnerPassword(
                configuration: configuration, email: "ada@example.com", password: "owner-password-2", logger: logger))
        _ = try await Operations.createProUser(
            configuration: configuration, email: "pro@example.com", password: "pro-password-1", maxAccounts: nil,
            logger: logger)
        let rotated = try Operations.rotateKeys(configuration: configuration, logger: logger)
        let kid = try #require(rotated.first { $0.contains("verifying until") }?.split(separator: " ").first)
        _ = try Operations.retireKeyNow(configuration: configuration, kid: String(kid), logger: logger)
        #expect(
            try await Operations.removeOwner(
                configuration: configuration, email: "ada@example.com", logger: logger))

        let lines = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(lines.count == 6)
        let expected = [
            "operator.command  operator operator  owner create",
            "operator.command  operator operator  owner set-password",
            "operator.command  operator operator  pro create", "keys.rotated  operator operator  signing keys",
            "keys.retired  operator operator  \(kid)", "operator.command  operator operator  owner remove",
        ]
        for (line, part) in zip(lines, expected) { #expect(line.contains(part), "\(line)") }
        #expect(lines[0].contains(#""owner_id":"\#(ada.prefix(36))""#))
        #expect(!lines.joined().contains("password-"))
    }

    @Test(
        "--owner shows that owner's events only, --since drops older ones, oldest first; an unknown owner is refused",
        arguments: StorageBackend.allCases)
    func ownerFilter(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        let ada = String(
            try await Operations.createOwner(
                configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger
            ).prefix(36))
        let bob = String(
            try await Operations.createOwner(
                configuration: configuration, email: "bob@example.com", password: "owner-password-1", logger: logger
            ).prefix(36))
        let database = try Operations.migratedDatabase(configuration, logger: logger)
        defer { database.close() }
        let log = SQLAuditLog(database: database)
        try await log.record(.owner(ada, .inboxCreated, target: "ada-one@agents.localhost", time: 1_900_000_000))
        try await log.record(.owner(bob, .inboxCreated, target: "bob-one@agents.localhost", time: 1_900_000_100))
        try await log.record(.owner(ada, .inboxDeleted, target: "ada-two@agents.localhost", time: 1_900_000_200))

        let adas = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: "Ada@Example.com", limit: 100, logger: logger)
        #expect(adas.count == 2)
        #expect(adas[0].hasPrefix("2030-03-17T17:46:40Z  inbox.created  owner \(ada)  ada-one@agents.localhost"))
        #expect(adas[1].contains("inbox.deleted") && adas.allSatisfy { $0.contains("owner \(ada)") })
        #expect(!adas.joined().contains("bob"))
        let recent = try await Operations.auditLines(
            configuration: configuration, since: "2030-03-17T17:48:20Z", ownerEmail: nil, limit: 100, logger: logger)
        #expect(recent.count == 2 && recent[0].contains("bob-one") && recent[1].contains("ada-two"))
        let bySeconds = try await Operations.auditLines(
            configuration: configuration, since: "1900000200", ownerEmail: nil, limit: 100, logger: logger)
        #expect(bySeconds.count == 1 && bySeconds[0].contains("ada-two"))
        // A time ago counts back from now: 150 s before 1_900_000_300 keeps the last event, 5 minutes all three.
        for (ago, count) in [("150s", 1), ("5m", 3), ("1h", 3), ("0d", 0)] {
            let found = try await Operations.auditLines(
                configuration: configuration, since: ago, ownerEmail: nil, limit: 100, logger: logger,
                now: 1_900_000_300)
            #expect(found.count == count, "\(ago): \(found)")
        }
        for unreadable in ["m", "10x", "-5m", "10 m"] {
            await #expect(throws: Operations.AuditQueryError.self, "\(unreadable)") {
                try await Operations.auditLines(
                    configuration: configuration, since: unreadable, ownerEmail: nil, limit: 100, logger: logger)
            }
        }
        await #expect(throws: Operations.AuditQueryError.self) {
            try await Operations.auditLines(
                configuration: configuration, since: nil, ownerEmail: "nobody@example.com", limit: 100, logger: logger)
        }
        await #expect(throws: Operations.AuditQueryError.self) {
            try await Operations.auditLines(
                configuration: configuration, since: "yesterday", ownerEmail: nil, limit: 100, logger: logger)
        }
    }

    @Test(
        "postern audit escapes control characters: a typed line feed forges no line, no escape reaches a terminal",
        arguments: StorageBackend.allCases)
    func controlCharacters(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        let database = try Operations.migratedDatabase(configuration, logger: logger)
        defer { database.close() }
        // As an older server stored it, raw.
        let typed =
            "x@example.com\n2030-03-17T17:46:40Z  owner.signin  owner 1  ada@example.com\u{1B}[2J\u{9B}\u{2028}"
        try await SQLAuditLog(database: database).record(
            AuditEvent(
                time: 1_900_000_000, actorKind: .owner, actorID: typed, ownerID: nil, action: .ownerSignInFailed,
                target: typed, clientAddress: "192.0.2.1\r", details: AuditDetails.json(["reason": "refused\u{85}"])))

        let lines = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.split(whereSeparator: \.isNewline).count == 1)
        #expect(!AuditText.containsControl(line), "\(line)")
        #expect(line.contains("x@example.com\\u{0A}2030-03-17T17:46:40Z") && line.contains("\\u{1B}[2J"))

        let json = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, json: true, logger: logger)
        #expect(json.count == 1)
        let object = try #require(json.first)
        #expect(object.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "\(object)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(object.utf8)) as? [String: Any])
        #expect(parsed["actor_id"] as? String == typed && parsed["target"] as? String == typed)
        #expect(parsed["action"] as? String == "owner.signin_failed" && parsed["actor_kind"] as? String == "owner")
        #expect(parsed["time"] as? String == "2030-03-17T17:46:40Z" && parsed["unix_time"] as? Int == 1_900_000_000)
        #expect(parsed["client_address"] as? String == "192.0.2.1\r" && parsed["owner_id"] is NSNull)
        #expect((parsed["details"] as? [String: Any])?["reason"] as? String == "refused\u{85}")
    }

    @Test(
        "a running server records into the trail postern audit reads: a Pro token made and revoked over HTTP",
        arguments: StorageBackend.allCases)
    func serverRecords(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.mailbox.proDomains = ["pro.localhost"] }
        defer { Task { await server.stop() } }
        let configuration = server.runtime.configuration
        _ = try await Operations.createProUser(
            configuration: configuration, email: "ops@example.com", password: "pro-password", maxAccounts: 1,
            logger: logger)
        let client = try server.client()
        let login = try await client.json(
            "POST", "/api/user/login", ["email": "ops@example.com", "password": "pro-password"])
        let jwt = try #require(try login.json()["token"] as? String)
        let made = try await client.json(
            "POST", "/api/user/tokens", ["name": "ci"], headers: [("Authorization", "Bearer \(jwt)")])
        let tokenID = try #require(try made.json()["id"] as? String)
        let secret = try #require(try made.json()["token"] as? String)
        let revoked = try await client.request(
            "DELETE", "/api/user/tokens/\(tokenID)", headers: [("Authorization", "Bearer \(jwt)")])
        #expect(revoked.status == 204)

        let lines = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first?.contains("operator.command  operator operator  pro create") == true)
        #expect(lines.dropFirst().first?.contains("pro_token.created  pro ") == true)
        #expect(lines.last?.contains("pro_token.revoked  pro ") == true)
        #expect(lines.dropFirst().allSatisfy { $0.contains(tokenID) && $0.contains("from 127.0.0.1") })
        #expect(!lines.joined().contains(secret) && !lines.joined().contains("pro-password"))
    }

    @Test(
        "POSTERN_AUDIT_DAYS: default 90, 1 to 3650; the purge keeps exactly that many days",
        arguments: StorageBackend.allCases)
    func retention(_ backend: StorageBackend) async throws {
        func load(_ environment: [String: String]) async throws -> PosternConfiguration {
            try await ConfigurationLoader.load(environment: environment, defaultPath: "/nonexistent/config/postern.env")
        }
        #expect(try await load([:]).storage.auditDays == 90)
        #expect(try await load(["POSTERN_AUDIT_DAYS": "7"]).storage.auditDays == 7)
        for bad in ["0", "3651", "-1"] {
            await #expect(throws: ConfigurationError.self) { try await load(["POSTERN_AUDIT_DAYS": bad]) }
        }

        let test = try backend.makeDatabase()
        let log = SQLAuditLog(database: test.database)
        let now: Int64 = 1_900_000_000
        for age: Int64 in [7 * 86_400 + 1, 7 * 86_400, 86_400] {
            try await log.record(.owner("o", .ownerSignIn, target: "age \(age)", time: now - age))
        }
        #expect(try test.database.writeSync { try SQLAuditLog.purgeExpired($0, now: now, days: 7) } == 1)
        #expect(try await log.events(since: nil, ownerID: nil, limit: 10).map(\.target) == ["age 86400", "age 604800"])
    }
}
