import AuthCrypto
import Owners
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// The owner's view of the authorization server's grants, over rows written as the authorization server writes them.
@Suite("Owners: connected apps (grants)")
struct OwnerGrantsTests {
    @Test(
        "an owner's live grants, newest first, with the client's name; revoked, expired and others' are not listed",
        arguments: StorageBackend.allCases)
    func listing(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "correct horse")
        let now = harness.clock.now
        let older = try harness.insertGrant(
            ownerID: ada.id, clientID: "n8n", clientName: nil, scope: "mail.read", createdAt: now - 50)
        let newer = try harness.insertGrant(ownerID: ada.id, clientID: "make", clientName: "Make", createdAt: now - 10)
        try harness.insertGrant(ownerID: ada.id, revokedAt: now - 5)
        try harness.insertGrant(ownerID: ada.id, createdAt: now - 100, expiresAt: now)
        try harness.insertGrant(ownerID: bob.id)

        let grants = try await harness.grants().grants(ownerID: ada.id)
        #expect(grants.map(\.id) == [newer, older])
        #expect(grants[0].clientName == "Make" && grants[0].clientID == "make")
        #expect(grants[0].scopes == ["mail.read", "mail.send"] && grants[0].resource == "http://127.0.0.1:8080/jmap")
        #expect(grants[1].clientName == nil && grants[1].scopes == ["mail.read"] && grants[1].grantedAt == now - 50)
        #expect(try await harness.grants().grants(ownerID: "no-such-owner").isEmpty)
    }

    @Test(
        "a consent whose code was never redeemed is no connected app; once redeemed it is listed once",
        arguments: StorageBackend.allCases)
    func unredeemed(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let redeemed = try harness.insertGrant(ownerID: ada.id, clientID: "make", createdAt: harness.clock.now - 60)
        // The same app approved again, its code never exchanged (the browser closed before the redirect came back).
        let pending = try harness.insertGrant(ownerID: ada.id, clientID: "make", createdAt: harness.clock.now - 10)
        try harness.test.database.writeSync { connection in
            for (grant, used) in [(redeemed, SQLValue.integer(harness.clock.now - 59)), (pending, .null)] {
                try connection.run(
                    """
                    INSERT INTO oauth_codes (code_digest, grant_id, redirect_uri, code_challenge, expires_at, used_at)
                    VALUES (?, ?, 'https://app.example/cb', 'x', ?, ?)
                    """,
                    [.blob(SHA256.hash(Array(grant.utf8))), .text(grant), .integer(harness.clock.now + 60), used])
            }
        }
        #expect(try await harness.grants().grants(ownerID: ada.id).map(\.id) == [redeemed])
        _ = try harness.test.database.writeSync { connection in
            try connection.run("UPDATE oauth_codes SET used_at = 1 WHERE grant_id = ?", [.text(pending)])
        }
        #expect(try await harness.grants().grants(ownerID: ada.id).map(\.id) == [pending, redeemed])
    }

    @Test(
        "revoking takes the owner's own live grant once, and tells the cache; another's or unknown changes nothing",
        arguments: StorageBackend.allCases)
    func revoke(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let ada = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let bob = try await harness.service.owners.create(email: "bob@example.com", password: "correct horse")
        let told = Mutex<[String]>([])
        let grants = harness.grants { id in told.withLock { $0.append(id) } }
        let mine = try harness.insertGrant(ownerID: ada.id)
        let theirs = try harness.insertGrant(ownerID: bob.id)

        #expect(try await !grants.revoke(id: theirs, ownerID: ada.id))
        #expect(try await !grants.revoke(id: "00000000-0000-4000-8000-000000000000", ownerID: ada.id))
        #expect(try harness.revokedAt(grant: theirs) == nil)
        harness.clock.advance(seconds: 30)
        #expect(try await grants.revoke(id: mine, ownerID: ada.id))
        #expect(try harness.revokedAt(grant: mine) == harness.clock.now)
        #expect(try await !grants.revoke(id: mine, ownerID: ada.id))
        #expect(told.withLock { $0 } == [mine])
        #expect(try await grants.grants(ownerID: ada.id).isEmpty)
        #expect(try await grants.grants(ownerID: bob.id).map(\.id) == [theirs])
    }
}
