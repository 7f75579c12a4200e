import Foundation
import AppPasswords
import PosternTestSupport
import Storage
import Testing

/// The app passwords' table (migration 0070) on both backends: made with the secret once and its digest stored,
/// found by the typed secret, listed by holder, the last use written at most once a minute, revoked at once.
@Suite("App passwords: the store")
struct AppPasswordStoreTests {
    static let owner = "0b0b0b0b-0000-4000-8000-000000000001"

    /// A database with one owner and one Pro user to hold app passwords.
    static func database(_ backend: StorageBackend) async throws -> TestDatabase {
        let test = try backend.makeDatabase()
        _ = try await test.database.write { connection in
            try connection.run(
                "INSERT INTO owners (id, email, password_hash, created_at) VALUES (?, 'ada@example.com', '', 0)",
                [.text(owner)])
        }
        return test
    }

    @Test("made, found however typed, listed with its times, last use written once a minute, revoked at once",
          arguments: StorageBackend.allCases)
    func lifecycle(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        let store = AppPasswordStore(database: test.database, limit: 2)
        let (made, secret) = try await store.create(
            holder: .owner(Self.owner), accountID: "agent-1", address: "bot@agents.localhost", name: " mutt ",
            doors: [.imap, .submission], now: 1_000)
        #expect(made.name == "mutt" && made.lastUsedAt == nil && made.doors == [.imap, .submission])
        // Only the digest is stored: no column holds the secret.
        let raw = try await test.database.read { try $0.query("SELECT * FROM app_passwords", []) }
        #expect(raw.count == 1 && ["id", "account_id", "address", "name"].allSatisfy { raw[0].text($0) != secret })
        #expect(raw[0].blob("digest") == AppPasswordSecret.digest(AppPasswordSecret.normalized(secret)!))

        let typed = secret.uppercased().replacingOccurrences(of: "-", with: " ")
        #expect(try await store.find(typed) == made)
        #expect(try await store.find("abcd-efgh-ijkl-mnop-qrst-uvwx-yzab") == nil)
        #expect(try await store.find("not an app password") == nil)

        try await store.markUsed(made, now: 2_000)
        let used = try #require(try await store.find(secret))
        #expect(used.lastUsedAt == 2_000)
        // Within the minute nothing is written, even from a stale read of the row.
        try await store.markUsed(used, now: 2_059)
        try await store.markUsed(made, now: 2_030)
        #expect(try await store.find(secret)?.lastUsedAt == 2_000)
        try await store.markUsed(used, now: 2_060)
        #expect(try await store.list(.owner(Self.owner)).map(\.lastUsedAt) == [2_060])

        #expect(try await store.exists(id: made.id))
        #expect(try await !store.revoke(id: made.id, holder: .proUser("someone else")))
        #expect(try await store.revoke(id: made.id, holder: .owner(Self.owner)))
        #expect(try await store.find(secret) == nil)
        #expect(try await !store.exists(id: made.id))
        #expect(try await !store.revoke(id: made.id, holder: .owner(Self.owner)))
    }

    @Test("a bad name, no door, or one more than the limit is refused and nothing is written",
          arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let test = try await Self.database(backend)
        let store = AppPasswordStore(database: test.database, limit: 1)
        let holder = AppPassword.Holder.owner(Self.owner)
        for name in ["", "   ", "two\nlines", String(repeating: "x", count: AppPasswordStore.maxNameLength + 1)] {
            await #expect(throws: AppPasswordStore.CreationError.invalidName) {
                try await store.create(holder: holder, accountID: "a", address: "a@x", name: name, doors: .imap, now: 1)
            }
        }
        await #expect(throws: AppPasswordStore.CreationError.noDoor) {
            try await store.create(holder: holder, accountID: "a", address: "a@x", name: "n", doors: [], now: 1)
        }
        _ = try await store.create(holder: holder, accountID: "a", address: "a@x", name: "n", doors: .pop3, now: 1)
        await #expect(throws: AppPasswordStore.CreationError.tooMany) {
            try await store.create(holder: holder, accountID: "a", address: "a@x", name: "m", doors: .pop3, now: 1)
        }
        #expect(try await store.list(holder).count == 1)
    }
}
