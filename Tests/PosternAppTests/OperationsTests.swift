import Audit
import AuthCrypto
import Foundation
import JWT
import Logging
import PosternTestSupport
import SigningKeys
import Storage
import Testing
@testable import PosternApp
@testable import PosternOperations

@Suite("Operator commands")
struct OperationsTests {
    private let logger = Logger(label: "operations-test")

    @Test("migrate applies every migration once", arguments: StorageBackend.allCases)
    func migrateOnce(_ backend: StorageBackend) throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        let first = try Operations.migrate(configuration: configuration, logger: logger)
        #expect(first.first == "0001_core.sql")
        #expect(first.count >= 2)
        #expect(try Operations.migrate(configuration: configuration, logger: logger).isEmpty)
    }

    @Test("keys rotate adds active keys and keeps the old ones listed as retired", arguments: StorageBackend.allCases)
    func rotate(_ backend: StorageBackend) throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        let now: Int64 = 1_800_000_000
        let before = try Operations.listKeys(configuration: configuration, logger: logger, now: now)
        #expect(before.count == 4)
        #expect(before.allSatisfy { $0.contains("  signing  created ") })
        #expect(before.filter { $0.contains("  EdDSA  ") }.count == 1)
        #expect(before.filter { $0.contains("  ES256  ") }.count == 1)
        let after = try Operations.rotateKeys(configuration: configuration, logger: logger, now: now + 10)
        #expect(after.count == 8)
        // Rotated out, they still verify the tokens they signed: until when, in words.
        #expect(after.filter { $0.contains("  verifying until ") }.count == 4, "\(after)")
        #expect(after.filter { $0.contains("  signing  ") }.count == 4)
        #expect(after.filter { $0.contains("RS256") }.count == 2)
        #expect(after.filter { $0.contains("  EdDSA  ") }.count == 2)
        #expect(after.filter { $0.contains("  ES256  ") }.count == 2)
        // Past the longest token lifetime the retired keys are gone.
        let later = try Operations.listKeys(configuration: configuration, logger: logger, now: now + 8 * 24 * 3600)
        #expect(later.count == 4)
    }

    @Test(
        "keys list words each key's state and keeps a key killed with --now, with when",
        arguments: StorageBackend.allCases)
    func killedKeyListed(_ backend: StorageBackend) throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        let now = Operations.unixNow()
        let before = try Operations.listKeys(configuration: configuration, logger: logger, now: now)
        let victim = try #require(before.first { $0.contains("  EdDSA  ") }?.split(separator: " ").first)
        _ = try Operations.retireKeyNow(configuration: configuration, kid: String(victim), logger: logger, now: now)
        let after = try Operations.listKeys(configuration: configuration, logger: logger, now: now + 1)
        #expect(after.count == 5, "\(after)")
        let killed = try #require(after.first { $0.hasPrefix(victim + "  ") }, "\(after)")
        #expect(killed.contains("  EdDSA  killed at 20") && killed.contains("  created 20"), "\(killed)")
        #expect(after.filter { $0.contains("  EdDSA  signing  ") }.count == 1)
    }

    @Test("a key's state in words: signing, signs from T, verifying until T, retired at T, killed at T")
    func keyStateWords() {
        func key(active: Bool = false, retired: Int64? = nil, drops: Int64? = nil, from: Int64? = nil) -> KeyInfo {
            KeyInfo(
                kid: "k", kind: .rsa, source: .database, createdAt: 0, retiredAt: retired, dropsAt: drops,
                isActive: active, signsFrom: from)
        }
        let now: Int64 = 1_800_000_000
        #expect(SigningKeyListing.state(of: key(active: true), now: now).words == "signing")
        #expect(SigningKeyListing.state(of: key(from: now + 60), now: now).words == "signs from 2027-01-15T08:01:00Z")
        #expect(SigningKeyListing.state(of: key(retired: now, drops: now + 60), now: now) == .verifyingUntil(now + 60))
        #expect(SigningKeyListing.state(of: key(retired: now - 120, drops: now - 60), now: now) == .retired(now - 60))
        #expect(SigningKeyListing.State.retired(now).words == "retired at 2027-01-15T08:00:00Z")
        #expect(SigningKeyListing.State.killed(now).words == "killed at 2027-01-15T08:00:00Z")
        #expect(
            SigningKeyListing.line(key(active: true), now: now)
                == "k  RS256  signing  created 1970-01-01T00:00:00Z  database")
    }

    @Test("backup of a PostgreSQL database is refused before connecting, pointing to pg_dump")
    func backupPostgres() throws {
        var configuration = TestServer.configuration(.sqlite)
        configuration.storage.databaseURL = "postgres://postern:s3cret@db.invalid/postern"
        do {
            try Operations.backup(configuration: configuration, to: "/nonexistent/copy", logger: logger)
            Issue.record("a PostgreSQL backup was attempted")
        } catch let error as ConfigurationError {
            #expect(error.key == "POSTERN_DATABASE_URL")
            #expect("\(error)".contains("pg_dump") && !"\(error)".contains("s3cret"))
        }
    }

    // `postern backup` copies SQLite's file: on PostgreSQL it refuses (the test above).
    @Test("oauth client create refuses a pairwise relying party with mail access, whose mail token would name the owner")
    func pairwiseMailRefused() async throws {
        let configuration = TestServer.configuration(.sqlite)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        func request(subjectType: String, mail: String?) -> Operations.OAuthClientRequest {
            var request = Operations.OAuthClientRequest(
                name: "Webmail", scope: "mail.read mail.send", inboxes: [], introspection: false, authMethod: "client_secret_basic",
                jwks: nil, jwksURI: nil)
            request.redirectURIs = ["https://webmail.example/callback"]
            (request.subjectType, request.mailAccess) = (subjectType, mail)
            return request
        }
        let error = await #expect(throws: Operations.OAuthClientRequestError.self) {
            _ = try await Operations.createOAuthClient(
                configuration: configuration, request(subjectType: "pairwise", mail: "mail.read"), logger: logger)
        }
        let said = try #require(error?.description)
        #expect(said.contains("--subject-type pairwise") && said.contains("--mail-access") && said.contains("owner's id"))
        #expect(try await Operations.listOAuthClients(configuration: configuration, logger: logger).isEmpty)
        // Either alone is made.
        for (subjectType, mail) in [("pairwise", nil), ("public", "mail.read")] as [(String, String?)] {
            let made = try await Operations.createOAuthClient(
                configuration: configuration, request(subjectType: subjectType, mail: mail), logger: logger)
            #expect(made.contains { $0.hasPrefix("client_id: ") })
        }
    }

    @Test("backup writes a consistent copy while the server serves, and refuses to overwrite")
    func backup() async throws {
        let server = try await TestServer.start(.sqlite)
        defer { Task { await server.stop() } }
        let client = try server.client()
        _ = try await client.request("GET", "/readyz")
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("backup-\(UUID()).tar").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        try Operations.backup(configuration: server.runtime.configuration, to: target, logger: logger)
        let restored = FileManager.default.temporaryDirectory.appendingPathComponent("restored-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: restored) }
        try Operations.restore(from: target, dataDirectory: restored, logger: logger)
        let copy = try Database.open(path: restored + "/postern.sqlite3", readerCount: 1, logger: logger)
        let rows = try copy.readSync { try $0.query("PRAGMA integrity_check") }
        #expect(rows.first?.text("integrity_check") == "ok")
        let migrations = try copy.readSync { try $0.query("SELECT COUNT(*) AS n FROM schema_migrations") }
        #expect((migrations.first?.int("n") ?? 0) >= 2)
        // The backup is on the source's audit trail (not in the archive, written before it); the restore on the copy's.
        let restoredEvents = try copy.readSync {
            try SQLAuditLog.events($0, since: nil, ownerID: nil, action: .operatorCommand, limit: 10)
        }
        #expect(restoredEvents.map(\.target) == ["restore"])
        #expect(restoredEvents.first?.details?.contains(target) == true)
        let sourceEvents = try await SQLAuditLog(database: server.runtime.database)
            .events(since: nil, ownerID: nil, limit: 10)
        #expect(sourceEvents.map(\.target) == ["backup"])
        #expect(sourceEvents.first?.details?.contains(target) == true)
        #expect(throws: ConfigurationError.self) {
            try Operations.backup(configuration: server.runtime.configuration, to: target, logger: logger)
        }
    }
}

@Suite("Key rotation reaches a running server")
struct LiveRotationTests {
    @Test(
        "keys retire --now: the serving instance refuses the key's tokens from its reload on; the output says when",
        arguments: StorageBackend.allCases)
    func retireWhileServing(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let leaked = try #require(server.runtime.keys.activeKID(for: .edDSA))
        let policy = JWTPolicy(purpose: .oauthAccess, issuer: "test", maximumLifetime: 900)
        let claims = JWTClaims(issuer: "test", purpose: .oauthAccess, issuedAt: Operations.unixNow(), ttl: 900)
        let token = try server.runtime.keys.sign(claims, for: .oauthAccess)
        #expect(try server.runtime.keys.verify(token, policy: policy, now: Operations.unixNow()).pur == "oauth-access")

        let output = try Operations.retireKeyNow(
            configuration: server.runtime.configuration, kid: leaked, logger: Logger(label: "operations-test"))
        #expect(output.first == "retired \(leaked) now: every token it signed is refused")
        #expect(output.contains { $0.hasPrefix("new EdDSA key ") })
        let when =
            backend == .postgres
            ? "drops it at once" : "at its next key reload, within POSTERN_KEY_RELOAD_SECONDS"
        #expect(output.contains { $0.contains(when) })
        #expect(!output.contains { $0.hasPrefix(leaked) })
        server.runtime.reloadKeys()
        let refused = #expect(throws: JWTError.self) {
            try server.runtime.keys.verify(token, policy: policy, now: Operations.unixNow())
        }
        #expect(refused?.code == .unknownKey)
        let jwks = try await server.client().request("GET", "/.well-known/jwks.json").text
        #expect(!jwks.contains(leaked))
        #expect(server.runtime.keys.activeKID(for: .edDSA).map { $0 != leaked } == true)

        let unknown = #expect(throws: KeyStoreError.self) {
            try Operations.retireKeyNow(
                configuration: server.runtime.configuration, kid: leaked, logger: Logger(label: "operations-test"))
        }
        #expect(unknown?.code == .unknownKey)
    }

    @Test(
        "after keys rotate and a reload, the JWKS lists both keys, new tokens use the new kid, old ones verify",
        arguments: StorageBackend.allCases)
    func rotateWhileServing(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let before = try #require(try await client.request("GET", "/.well-known/jwks.json").json()["keys"] as? [[String: Any]])
        #expect(before.map { $0["kty"] as? String } == ["RSA", "OKP", "EC"])
        let oldKID = try #require(before.first?["kid"] as? String)
        let oldEdKID = try #require(before[1]["kid"] as? String)
        let oldAccess = try server.runtime.keys.sign(
            JWTClaims(issuer: "test", purpose: .oauthAccess, issuedAt: Operations.unixNow(), ttl: 900), for: .oauthAccess)
        let oldChallenge = try #require(try await client.request("POST", "/api/v1/challenge").bearer)

        _ = try Operations.rotateKeys(configuration: server.runtime.configuration, logger: Logger(label: "operations-test"))
        server.runtime.reloadKeys()

        let after = try #require(try await client.request("GET", "/.well-known/jwks.json").json()["keys"] as? [[String: Any]])
        #expect(after.map { $0["kty"] as? String } == ["RSA", "RSA", "OKP", "OKP", "EC", "EC"])
        #expect(after[1]["kid"] as? String == oldKID)
        let newKID = try #require(after.first?["kid"] as? String)
        #expect(newKID != oldKID)
        #expect(after[3]["kid"] as? String == oldEdKID)
        let newEdKID = try #require(after[2]["kid"] as? String)
        #expect(newEdKID != oldEdKID && server.runtime.keys.activeKID(for: .edDSA) == newEdKID)
        #expect(after[4]["kid"] as? String == server.runtime.keys.activeKID(for: .es256))
        #expect(after[5]["kid"] as? String == before[2]["kid"] as? String)
        let policy = JWTPolicy(purpose: .oauthAccess, issuer: "test", maximumLifetime: 900)
        #expect(try server.runtime.keys.verify(oldAccess, policy: policy, now: Operations.unixNow()).pur == "oauth-access")
        // The old challenge (signed by the retired HMAC key) still passes the token check: a bad proof is
        // the refusal, not an invalid challenge.
        let reply = try await client.json(
            "POST", "/api/v1/session", ["powHex": "zz", "nonce": "0", "username": "rotated"],
            headers: [("Authorization", "Bearer \(oldChallenge)")])
        #expect(reply.status == 400)
        let newChallenge = try #require(try await client.request("POST", "/api/v1/challenge").bearer)
        let header = try #require(Base64URL.decode(String(newChallenge.split(separator: ".")[0])))
        let oldHeader = try #require(Base64URL.decode(String(oldChallenge.split(separator: ".")[0])))
        #expect(header != oldHeader)  // a new HS256 kid signs
    }
}
