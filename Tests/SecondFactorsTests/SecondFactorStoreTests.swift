import PosternTestSupport
import SecondFactors
import Storage
import TOTP
import Testing

/// The one second-factor store (issue 88 item 3) mounted on both families' tables: owners' (migration 0074) and Pro
/// users' (migration 0081). RFC 6238 Appendix B's SHA-1 secret and times, read through the store, give its codes'
/// last six digits; each step is accepted once, a recovery code once, and one family's factor is not the other's.
@Suite("Second factors: one store, owners' and Pro users' tables")
struct SecondFactorStoreTests {
    /// RFC 6238 Appendix B's SHA-1 seed, "12345678901234567890" in ASCII.
    static let seed = Array("12345678901234567890".utf8)
    /// Appendix B's times with the last six digits of their eight-digit SHA-1 codes (94287082, 07081804, 14050471,
    /// 89005924, 69279037).
    static let vectors: [(time: Int64, code: String)] = [
        (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
        (2_000_000_000, "279037"),
    ]

    /// A clock the test moves.
    final class Clock: @unchecked Sendable {
        // Set only between the store's calls, on the test's task.
        var now: Int64 = 0
    }

    /// A migrated database with an owner `o1` and a Pro user `p1`, each with the RFC seed on, as confirmed.
    static func database(_ backend: StorageBackend) async throws -> TestDatabase {
        let test = try backend.makeDatabase()
        _ = try await test.database.write { connection in
            try connection.run(
                "INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o1', 'ada@example.com', '', 0)", [])
            try connection.run(
                """
                INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at)
                VALUES ('p1', 'bea@example.com', '', 5, 0)
                """, [])
            try connection.run(
                "INSERT INTO owner_totp (owner_id, secret, created_at, confirmed_at) VALUES ('o1', ?, 0, 0)",
                [.blob(seed)])
            try connection.run(
                "INSERT INTO pro_user_totp (pro_user_id, secret, created_at, confirmed_at) VALUES ('p1', ?, 0, 0)",
                [.blob(seed)])
            return 0
        }
        return test
    }

    @Test("RFC 6238 Appendix B through the store, each step once, for owners and Pro users",
          arguments: StorageBackend.allCases)
    func knownAnswers(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        let clock = Clock()
        for (tables, holder) in [(SecondFactorTables.owners, "o1"), (SecondFactorTables.proUsers, "p1")] {
            let store = SecondFactorStore(tables, database: test.database, sealing: nil, clock: { clock.now })
            for vector in Self.vectors {
                clock.now = vector.time
                #expect(try await store.check(holder: holder, code: vector.code) == .totp, "\(vector.time)")
                #expect(try await store.check(holder: holder, code: vector.code) == .replayed, "\(vector.time) again")
            }
            // A code of a step before the last accepted one is refused as a replay, not taken again.
            clock.now = 59
            #expect(try await store.check(holder: holder, code: "287082") == .replayed)
            #expect(try await store.check(holder: holder, code: "000000") == .wrong)
        }
    }

    @Test("a factor set up on one family's tables is not the other's; recovery codes are used once",
          arguments: StorageBackend.allCases)
    func familiesApart(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        let clock = Clock()
        clock.now = 1_700_000_000
        let owners = SecondFactorStore(.owners, database: test.database, sealing: nil, clock: { clock.now })
        let pro = SecondFactorStore(.proUsers, database: test.database, sealing: nil, clock: { clock.now })
        #expect(try await pro.remove(holder: "p1"))
        #expect(try await pro.state(holder: "p1") == .off)
        #expect(try await owners.state(holder: "o1") == .on(recoveryCodesLeft: 0))

        let secret = try #require(try await pro.begin(holder: "p1"))
        #expect(try await pro.state(holder: "p1") == .pending)
        #expect(try await owners.pendingSecret(holder: "p1") == nil)
        let totp = TOTP()
        let codes = try #require(
            try await pro.confirm(holder: "p1", code: totp.code(secret: secret, step: totp.step(at: clock.now))))
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(try await pro.state(holder: "p1") == .on(recoveryCodesLeft: 10))
        #expect(try await owners.check(holder: "o1", code: codes[0]) == .wrong)
        #expect(try await pro.check(holder: "p1", code: codes[0].uppercased()) == .recoveryCode)
        #expect(try await pro.check(holder: "p1", code: codes[0]) == .wrong)
        #expect(try await pro.state(holder: "p1") == .on(recoveryCodesLeft: 9))
        // The first code's step was used by the confirmation: it signs nobody in.
        #expect(try await pro.check(holder: "p1", code: totp.code(secret: secret, step: totp.step(at: clock.now)))
            == .replayed)
        #expect(try await owners.remove(holder: "o1"))
        #expect(try await pro.state(holder: "p1") == .on(recoveryCodesLeft: 9))
    }
}
