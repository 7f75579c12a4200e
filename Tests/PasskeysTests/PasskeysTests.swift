import AuthCrypto
import Passkeys
import PosternTestSupport
import Storage
import Testing
import WebAuthn

/// The passkeys' tables on each backend (`StorageBackend.allCases`): challenges single-use, bound and five minutes
/// long, seen by another instance; credentials added, found, listed, counted on, marked, renamed and removed.
@Suite("Passkeys: challenges and credentials in the database")
struct PasskeysTests {
    static let ada = PasskeyHolder.owner("o-ada")
    static let bob = PasskeyHolder.owner("o-bob")
    static let pro = PasskeyHolder.proUser("u-pro")
    static let party = RelyingParty(id: "example.com", origins: ["https://example.com"])

    static func database(_ backend: StorageBackend) throws -> TestDatabase {
        try backend.makeDatabaseWithHolders()
    }

    @Test(
        "a challenge is spent once, by another instance too; not for another ceremony, person, or after 5 minutes",
        arguments: StorageBackend.allCases)
    func challenges(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let here = PasskeyChallenges(database: test.database)
        let there = PasskeyChallenges(database: try test.another())
        let now: Int64 = 1_000_000
        let challenge = try await here.issue(.registration, for: Self.ada, now: now)
        #expect(challenge.count == 32)
        // Begun here, finished there; then spent.
        #expect(try await there.consume(challenge, .registration, for: Self.ada, now: now + 10))
        #expect(try await !here.consume(challenge, .registration, for: Self.ada, now: now + 10))
        // Another person's challenge, another ceremony's, an expired one: refused, and spent all the same.
        let bobs = try await here.issue(.registration, for: Self.bob, now: now)
        #expect(try await !there.consume(bobs, .registration, for: Self.ada, now: now))
        #expect(try await !there.consume(bobs, .registration, for: Self.bob, now: now))
        let signIn = try await here.issue(.signIn, for: nil, now: now)
        #expect(try await !there.consume(signIn, .registration, for: nil, now: now))
        let late = try await here.issue(.signIn, for: nil, now: now)
        #expect(try await !there.consume(late, .signIn, for: nil, now: now + PasskeyChallenges.lifetime + 1))
        let onTime = try await here.issue(.signIn, for: nil, now: now)
        #expect(try await there.consume(onTime, .signIn, for: nil, now: now + PasskeyChallenges.lifetime))
        // A sign-in challenge issued to nobody is not a Pro user's, nor the reverse.
        let anonymous = try await here.issue(.signIn, for: nil, now: now)
        #expect(try await !there.consume(anonymous, .signIn, for: Self.pro, now: now))
        let pros = try await here.issue(.signIn, for: Self.pro, now: now)
        #expect(try await !there.consume(pros, .signIn, for: nil, now: now))
        // Bytes never issued, and of another length.
        #expect(try await !here.consume(SecureRandom.bytes(32), .signIn, for: nil, now: now))
        #expect(try await !here.consume([1, 2, 3], .signIn, for: nil, now: now))
        // Only the digest is stored.
        let stored = try test.database.readSync { try $0.query("SELECT digest FROM passkey_challenges", []) }
        let unspent = try await here.issue(.signIn, for: nil, now: now)
        let digests = try test.database.readSync { try $0.query("SELECT digest FROM passkey_challenges", []) }
        #expect(digests.count == stored.count + 1)
        #expect(digests.contains { $0.blob("digest") == SHA256.hash(unspent) })
        #expect(!digests.contains { $0.blob("digest") == unspent })
        // The purge removes what expired.
        _ = try await here.issue(.signIn, for: nil, now: now + 1000)
        #expect(try await here.purgeExpired(now: now + PasskeyChallenges.lifetime + 1) == 1)
        #expect(
            try await there.consume(
                try await here.issue(.signIn, for: nil, now: now + 1000), .signIn, for: nil,
                now: now + 1000))
    }

    @Test(
        "credentials: added, found by id, listed per holder, counted on by compare-and-set, marked, renamed, removed",
        arguments: StorageBackend.allCases)
    func credentials(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let store = PasskeyStore(database: test.database)
        let laptop = try SoftwareAuthenticator(seed: 1, credentialID: Array(1...16))
        let phone = try SoftwareAuthenticator(seed: 2, credentialID: Array(17...48))
        let registration = try laptop.register(with: Self.party, flags: 0x45 | 0x18)
        let added = try await store.add(registration, for: Self.ada, userHandle: [7, 7], name: "  Laptop ", now: 100)
        #expect(added.name == "Laptop" && added.backupEligible && added.backupState && added.algorithm == .eddsa)
        _ = try await store.add(
            try phone.register(with: Self.party), for: Self.pro, userHandle: [8], name: "Phone", now: 200)
        // The same credential id again, for anyone, is refused.
        await #expect(throws: PasskeyStoreError.duplicateCredential) {
            try await store.add(registration, for: Self.bob, userHandle: [9], name: "Again", now: 300)
        }
        let found = try #require(try await store.credential(withID: laptop.credentialID))
        #expect(found == added)
        #expect(
            found.stored
                == StoredCredential(
                    credentialID: laptop.credentialID, publicKey: laptop.coseKey, algorithm: .eddsa, signCount: 0))
        #expect(try await store.credential(withID: [1, 2, 3]) == nil)
        #expect(try await store.credentials(of: Self.ada).map(\.name) == ["Laptop"])
        #expect(try await store.credentials(of: Self.pro).map(\.name) == ["Phone"])
        #expect(try await store.credentials(of: Self.bob).isEmpty)

        // The counter moves from the value verified against, once.
        #expect(
            try await store.recordSignIn(
                credentialID: laptop.credentialID, expected: 0, signCount: 5, backupState: false, now: 400))
        #expect(
            try await !store.recordSignIn(
                credentialID: laptop.credentialID, expected: 0, signCount: 6, backupState: false, now: 401))
        let used = try #require(try await store.credential(withID: laptop.credentialID))
        #expect(used.signCount == 5 && used.lastUsedAt == 400 && !used.backupState)

        // Marked possibly cloned: once, and no sign-in is recorded after.
        #expect(try await store.markPossiblyCloned(credentialID: laptop.credentialID, now: 500))
        #expect(try await !store.markPossiblyCloned(credentialID: laptop.credentialID, now: 600))
        #expect(try await store.credential(withID: laptop.credentialID)?.clonedAt == 500)
        #expect(
            try await !store.recordSignIn(
                credentialID: laptop.credentialID, expected: 5, signCount: 6, backupState: false, now: 700))

        // Renamed and removed by its holder only.
        #expect(try await store.rename(added.id, of: Self.ada, to: "Work laptop"))
        #expect(try await !store.rename(added.id, of: Self.bob, to: "Mine"))
        await #expect(throws: PasskeyStoreError.invalidName) { try await store.rename(added.id, of: Self.ada, to: " ") }
        await #expect(throws: PasskeyStoreError.invalidName) {
            try await store.rename(added.id, of: Self.ada, to: String(repeating: "x", count: 65))
        }
        await #expect(throws: PasskeyStoreError.invalidName) {
            try await store.rename(added.id, of: Self.ada, to: "tab\there")
        }
        #expect(try await store.credentials(of: Self.ada).map(\.name) == ["Work laptop"])
        #expect(try await !store.remove(added.id, of: Self.pro))
        #expect(try await store.remove(added.id, of: Self.ada))
        #expect(try await store.credentials(of: Self.ada).isEmpty)
        #expect(try await store.credential(withID: laptop.credentialID) == nil)
    }

    @Test("a holder's passkeys and challenges go with the holder", arguments: StorageBackend.allCases)
    func cascade(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let store = PasskeyStore(database: test.database)
        let challenges = PasskeyChallenges(database: test.database)
        let laptop = try SoftwareAuthenticator(seed: 3)
        _ = try await store.add(
            try laptop.register(with: Self.party), for: Self.pro, userHandle: [1], name: "K", now: 1)
        let challenge = try await challenges.issue(.registration, for: Self.pro, now: 1)
        _ = try test.database.writeSync { try $0.run("DELETE FROM mailbox_pro_users WHERE id = 'u-pro'", []) }
        #expect(try await store.credential(withID: laptop.credentialID) == nil)
        #expect(try await !challenges.consume(challenge, .registration, for: Self.pro, now: 1))
    }

    @Test(
        "a burst of sign-in challenges stops at the cap across instances; a registration never does; expired ones free room (issue 66)",
        arguments: StorageBackend.allCases)
    func signInCap(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let ceiling = UnauthenticatedRowLimits(perClient: 100, total: 5)
        let here = PasskeyChallenges(database: test.database, limits: ceiling)
        let there = PasskeyChallenges(database: try test.another(), limits: ceiling)
        var refused = 0
        for index in 0..<12 {
            do {
                _ = try await (index % 2 == 0 ? here : there).issue(.signIn, for: nil, now: 100)
            } catch is PasskeyChallengesFull {
                refused += 1
            }
        }
        func rows(_ condition: String) throws -> Int64 {
            try test.database.writeSync {
                try $0.query("SELECT COUNT(*) AS n FROM passkey_challenges WHERE \(condition)", []).first?.int("n") ?? -1
            }
        }
        #expect(refused == 7)
        #expect(try rows("owner_id IS NULL AND pro_user_id IS NULL") == 5)
        // A signed-in holder's registration is not held back by strangers' sign-ins.
        let registration = try await here.issue(.registration, for: Self.ada, now: 100)
        #expect(try await here.consume(registration, .registration, for: Self.ada, now: 100))
        // Once they expire (the purge deletes them every minute), sign-ins are issued again.
        let later = 100 + PasskeyChallenges.lifetime + 1
        let fresh = try await here.issue(.signIn, for: nil, now: later)
        #expect(try await here.consume(fresh, .signIn, for: nil, now: later))
        #expect(try await here.purgeExpired(now: later) == 5)
    }

    @Test(
        "one client's flood of sign-in challenges fills only its own share: another client still signs in (issue 81)",
        arguments: StorageBackend.allCases)
    func signInSharePerClient(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let limits = UnauthenticatedRowLimits(perClient: 4, total: 10)
        let here = PasskeyChallenges(database: test.database, limits: limits)
        let there = PasskeyChallenges(database: try test.another(), limits: limits)
        func issued(_ client: String, _ count: Int, now: Int64 = 100) async throws -> Int {
            var issued = 0
            for index in 0..<count {
                do {
                    _ = try await (index % 2 == 0 ? here : there).issue(.signIn, for: nil, client: client, now: now)
                    issued += 1
                } catch is PasskeyChallengesFull {}
            }
            return issued
        }
        // The flooding client, through both instances, gets its share and no more.
        #expect(try await issued("192.0.2.7", 12) == 4)
        // Another client is not locked out by it, and the client's share is its own, not its neighbour's.
        let other = try await here.issue(.signIn, for: nil, client: "198.51.100.4", now: 100)
        #expect(try await there.consume(other, .signIn, for: nil, now: 100))
        #expect(try await issued("2001:db8:1:2:0:0:0:0/64", 12) == 4)
        // The ceiling stays, a last resort above every share: 4 + 4 + one more client's 2 reach 10.
        #expect(try await issued("203.0.113.9", 4) == 2)
        #expect(try await issued("203.0.113.10", 1) == 0)
        // A registration, by a signed-in holder, is counted in neither.
        _ = try await here.issue(.registration, for: Self.ada, client: "192.0.2.7", now: 100)
        // Past their five minutes, the flood's challenges give their places back.
        let later = 100 + PasskeyChallenges.lifetime + 1
        #expect(try await issued("192.0.2.7", 1, now: later) == 1)
    }
}

