import AuthCrypto
import Dispatch
import Foundation
import JSON
import JWT
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import SigningKeys

/// The key ring several instances share through their database, on SQLite and on PostgreSQL.
@Suite("DatabaseKeyStore: one key ring for every instance on a database", .serialized, .timeLimit(.minutes(1)))
struct DatabaseKeyStoreTests {
    static let secret = "an operator secret of some length"
    static let ttl: Int64 = 3600

    func open(
        _ database: any SQLDatabase, clock: TestClock, secret: String = Self.secret, delay: Int64 = 100
    ) throws -> DatabaseKeyStore {
        try DatabaseKeyStore(
            database: database, secret: secret, environmentPrivatePEM: nil, environmentPublicPEM: nil,
            maxTokenTTL: Self.ttl,
            promotionDelay: delay, clock: { clock.now })
    }

    func sign(_ store: DatabaseKeyStore, _ algorithm: JWTAlgorithm, at now: Int64) throws -> String {
        try SigningKeysTests.sign(store.keySet(), algorithm, issuedAt: now)
    }

    /// The kids and kinds of the ring's rows: `signing_keys`' and `signing_keys_p256`'s (migration 0080).
    func rows(_ database: any SQLDatabase) throws -> [(kid: String, kind: String)] {
        try database.readSync { connection in
            try connection.query("SELECT kid, kind FROM signing_keys", []).map { ($0.text("kid") ?? "", $0.text("kind") ?? "") }
                + connection.query("SELECT kid FROM signing_keys_p256", []).map { ($0.text("kid") ?? "", "p256") }
        }
    }

    /// The kinds of `signing_keys`' rows, each one the release before 0080 reads (it refuses the ring on another).
    func signingKeysKinds(_ database: any SQLDatabase) throws -> [String] {
        try database.readSync { try $0.query("SELECT kind FROM signing_keys ORDER BY kind", []) }.compactMap {
            $0.text("kind")
        }
    }

    func kid(of token: String) throws -> String {
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        return try #require(JSONValue.parse(header)["kid"]?.stringValue)
    }

    @Test(
        "the first store makes one RSA, one Ed25519, one P-256 and one HMAC key, sealed; another instance gets the same keys",
        arguments: StorageBackend.allCases)
    func sharedRing(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(now)
        let first = try open(test.database, clock: clock)
        let second = try open(try test.another(), clock: clock)
        #expect(first.list().map(\.kid) == second.list().map(\.kid))
        #expect(first.list().map(\.kind) == [.hmac, .rsa, .ed25519, .p256])
        #expect(first.list().allSatisfy { $0.isActive && $0.source == .database && $0.signsFrom == nil })
        #expect(first.keySet().jwksJSON() == second.keySet().jwksJSON())
        for algorithm in JWTAlgorithm.allCases {
            let token = try sign(first, algorithm, at: now)
            #expect(verifies(second.keySet(), token, algorithm), "\(algorithm)")
        }
        // The material is sealed: no PEM, no secret in the clear.
        let rows = try test.database.readSync {
            try $0.query("SELECT sealed FROM signing_keys UNION ALL SELECT sealed FROM signing_keys_p256", [])
        }
        #expect(rows.count == 4)
        #expect(try signingKeysKinds(test.database) == ["ed25519", "hmac", "rsa"])
        for row in rows {
            let sealed = try #require(row.blob("sealed"))
            #expect(!String(decoding: sealed, as: UTF8.self).contains("PRIVATE KEY"))
        }
    }

    @Test(
        "a rotated key is published at once, signs only after the promotion delay, and the old one leaves after the retention",
        arguments: StorageBackend.allCases)
    func publishBeforeSign(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(now)
        let rotating = try open(test.database, clock: clock)
        let other = try open(try test.another(), clock: clock)
        let old = try kid(of: try sign(rotating, .rs256, at: now))
        let oldEd = try kid(of: try sign(rotating, .edDSA, at: now))
        clock.advance(10)
        let added = try rotating.rotate(now: clock.now)
        #expect(added.count == 4)
        #expect(added.allSatisfy { !$0.isActive && $0.signsFrom == now + 110 })
        let new = try #require(added.first { $0.kind == .rsa }?.kid)
        let newEd = try #require(added.first { $0.kind == .ed25519 }?.kid)
        // Published: in the JWKS of both instances (the other after its reload), verifying, not signing.
        try other.reload(now: clock.now)
        for store in [rotating, other] {
            #expect(store.keySet().keys.map(\.kid).contains(new))
            #expect(String(decoding: store.keySet().jwksJSON(), as: UTF8.self).contains(newEd))
            #expect(try kid(of: try sign(store, .rs256, at: clock.now)) == old)
            #expect(try kid(of: try sign(store, .edDSA, at: clock.now)) == oldEd)
        }
        clock.advance(100)
        for store in [rotating, other] {
            try store.reload(now: clock.now)
            #expect(try kid(of: try sign(store, .rs256, at: clock.now)) == new)
            #expect(try kid(of: try sign(store, .edDSA, at: clock.now)) == newEd)
            let retired = try #require(store.list().first { $0.kid == old })
            #expect(retired.retiredAt == now + 110 && retired.dropsAt == now + 110 + store.retention)
            let retiredEd = try #require(store.list().first { $0.kid == oldEd })
            #expect(retiredEd.retiredAt == now + 110 && !retiredEd.isActive)
        }
        clock.advance(rotating.retention + 1)
        try other.reload(now: clock.now)
        #expect(!other.keySet().keys.map(\.kid).contains(old))
        #expect(!other.keySet().keys.map(\.kid).contains(oldEd))
        #expect(Set(try rows(test.database).map(\.kid)) == Set(added.map(\.kid)))
    }

    @Test("instances starting at once on an empty database end with one key ring", arguments: StorageBackend.allCases)
    func simultaneousStart(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let handles = try (0..<3).map { _ in try test.another() }
        let clock = TestClock(now)
        let kids = Mutex<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: handles.count) { index in
            if let store = try? open(handles[index], clock: clock) {
                kids.withLock { $0.append(store.list().map(\.kid)) }
            }
        }
        let seen = kids.withLock { $0 }
        #expect(seen.count == handles.count)
        let kidLists: Set<String> = Set(seen.map { $0.joined(separator: ",") })
        #expect(kidLists.count == 1)
        #expect(try rows(test.database).map(\.kind).sorted() == ["ed25519", "hmac", "p256", "rsa"])
        for handle in handles { handle.close() }
    }

    @Test(
        "a ring made before Ed25519 keys gets one from the next instance to start, signing at once; the rest stays",
        arguments: StorageBackend.allCases)
    func upgradeAddsEd25519(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(now)
        let before = try open(test.database, clock: clock).list()
        // What an older Postern left: no Ed25519 row.
        _ = try test.database.writeSync { try $0.run("DELETE FROM signing_keys WHERE kind = 'ed25519'", []) }
        clock.advance(60)
        let upgraded = try open(try test.another(), clock: clock)
        let added = try #require(upgraded.list().first { $0.kind == .ed25519 })
        #expect(added.isActive && added.signsFrom == nil && added.createdAt == now + 60)
        #expect(!before.map(\.kid).contains(added.kid))
        #expect(upgraded.list().filter { $0.kind != .ed25519 } == before.filter { $0.kind != .ed25519 })
        #expect(try kid(of: try sign(upgraded, .edDSA, at: clock.now)) == added.kid)
        #expect(try rows(test.database).map(\.kind).sorted() == ["ed25519", "hmac", "p256", "rsa"])
    }

    @Test(
        """
        a ring made before P-256 keys gets one from the next instance to start; rotating and retiring it touch \
        signing_keys_p256 alone, and signing_keys keeps only kinds the release before reads
        """,
        arguments: StorageBackend.allCases)
    func p256KeyOfItsOwn(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(now)
        let before = try open(test.database, clock: clock).list()
        // What the release before 0080 left: no P-256 key.
        _ = try test.database.writeSync { try $0.run("DELETE FROM signing_keys_p256", []) }
        clock.advance(60)
        let upgraded = try open(try test.another(), clock: clock, delay: 0)
        let added = try #require(upgraded.list().first { $0.kind == .p256 })
        #expect(added.isActive && added.createdAt == now + 60 && !before.map(\.kid).contains(added.kid))
        #expect(upgraded.list().filter { $0.kind != .p256 } == before.filter { $0.kind != .p256 })
        #expect(try kid(of: try sign(upgraded, .es256, at: clock.now)) == added.kid)
        // Its generation follows the ring's: the ES256 key is published after the others.
        #expect(upgraded.keySet().keys.last?.kid == added.kid)

        let rotated = try upgraded.rotate(now: clock.now)
        #expect(rotated.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.ed25519, .hmac, .p256, .rsa])
        let next = try #require(rotated.first { $0.kind == .p256 })
        let replacement = try #require(try upgraded.retireNow(kid: next.kid, now: clock.now).first)
        #expect(replacement.kind == .p256 && replacement.isActive)
        #expect(try kid(of: try sign(upgraded, .es256, at: clock.now)) == replacement.kid)
        #expect(try rows(test.database).filter { $0.kind == "p256" }.map(\.kid).sorted()
            == [added.kid, replacement.kid].sorted())
        #expect(try signingKeysKinds(test.database) == ["ed25519", "ed25519", "hmac", "hmac", "rsa", "rsa"])
        // Another instance opens the same ring, P-256 keys included.
        let other = try open(try test.another(), clock: clock)
        #expect(other.list().map(\.kid) == upgraded.list().map(\.kid))
    }

    @Test("a token naming a kid the instance does not know yet makes it reload", arguments: StorageBackend.allCases)
    func unknownKIDReloads(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(now)
        let rotating = try open(test.database, clock: clock, delay: 0)
        let other = try open(try test.another(), clock: clock, delay: 0)
        clock.advance(5)
        try rotating.rotate(now: clock.now)
        let token = try sign(rotating, .hs256, at: clock.now)
        #expect(throws: JWTError.self) {
            try other.keySet().verify(token, policy: policy(.hs256), now: clock.now)
        }
        var verified = false
        for _ in 0..<100 where !verified {
            try await Task.sleep(for: .milliseconds(20))
            verified = (try? other.keySet().verify(token, policy: policy(.hs256), now: clock.now)) != nil
        }
        #expect(verified)
    }

    @Test(
        "retire --now deletes the key: its tokens are refused everywhere, a new key signs at once, others verify",
        arguments: StorageBackend.allCases)
    func retireNow(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(now)
        let retiring = try open(test.database, clock: clock)
        let other = try open(try test.another(), clock: clock)
        // A rotated-out RSA key, still verifying: it must not sign again once its successor is retired.
        let older = try kid(of: try sign(retiring, .rs256, at: now))
        try retiring.rotate(now: now)
        clock.advance(200)
        try retiring.reload(now: clock.now)
        try other.reload(now: clock.now)
        let leakedToken = try sign(other, .rs256, at: clock.now)
        let leaked = try kid(of: leakedToken)
        #expect(leaked != older)
        let sessionToken = try sign(other, .hs256, at: clock.now)
        let accessToken = try sign(other, .edDSA, at: clock.now)
        #expect(throws: Never.self) {
            try retiring.keySet().verify(leakedToken, policy: policy(.rs256), now: clock.now)
        }

        let added = try retiring.retireNow(kid: leaked, now: clock.now)
        #expect(added.map(\.kind) == [.rsa])
        let replacement = try #require(added.first)
        #expect(replacement.isActive && replacement.signsFrom == nil)
        // What the notification makes the other instance do.
        try other.reload(now: clock.now)
        for store in [retiring, other] {
            let refused = #expect(throws: JWTError.self) {
                try store.keySet().verify(leakedToken, policy: policy(.rs256), now: clock.now)
            }
            #expect(refused?.code == .unknownKey)
            #expect(!String(decoding: store.keySet().jwksJSON(), as: UTF8.self).contains(leaked))
            #expect(throws: Never.self) {
                _ = try store.keySet().verify(sessionToken, policy: policy(.hs256), now: clock.now)
                _ = try store.keySet().verify(accessToken, policy: policy(.edDSA), now: clock.now)
            }
            #expect(try kid(of: try sign(store, .rs256, at: clock.now)) == replacement.kid)
        }
        let left = try test.database.readSync {
            try $0.query("SELECT kid FROM signing_keys WHERE kid = ?", [.text(leaked)])
        }
        #expect(left.isEmpty)
        let unknown = #expect(throws: KeyStoreError.self) { try retiring.retireNow(kid: leaked, now: clock.now) }
        #expect(unknown?.code == .unknownKey)
    }

    @Test(
        "keys sealed under one secret do not open under another; a short secret is refused",
        arguments: StorageBackend.allCases)
    func wrongSecret(_ backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(now)
        _ = try open(test.database, clock: clock)
        #expect(throws: KeyStoreError.self) { try open(test.database, clock: clock, secret: "another secret, as long") }
        do {
            _ = try open(test.database, clock: clock, secret: "short")
            Issue.record("a short secret was accepted")
        } catch let error as KeyStoreError {
            #expect(error.code == .configuration)
            #expect(error.reason.contains("POSTERN_KEY_SECRET"))
        }
    }
}
