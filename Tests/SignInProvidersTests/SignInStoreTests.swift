import Foundation
import PosternTestSupport
import Storage
import Testing

@testable import SignInProviders

/// The login transactions (single use, short-lived, bound to their browser, answered by any instance) and the linked
/// identities (keyed on issuer and subject, one account per family, gone with their account), on both backends.
@Suite("Sign-in transactions and linked identities", .timeLimit(.minutes(2)))
struct SignInStoreTests {
    static let issuer = "https://idp.example"

    /// An owner and a Pro user to link identities to, as their own targets would make them.
    static func accounts(_ database: any SQLDatabase) async throws {
        _ = try await database.write { connection in
            for (id, email) in [("owner-a", "a@example.com"), ("owner-b", "b@example.com")] {
                try connection.run(
                    "INSERT INTO owners (id, email, password_hash, created_at) VALUES (?, ?, 'x', 0)",
                    [.text(id), .text(email)])
            }
            try connection.run(
                """
                INSERT INTO mailbox_pro_users (id, email, password_hash, max_accounts, created_at)
                VALUES ('pro-a', 'a@example.com', 'x', 10, 0)
                """)
        }
    }

    @Test("RFC 7636 appendix B: the S256 challenge of its verifier")
    func codeChallenge() {
        #expect(
            SignInTransaction.codeChallenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test(
        "a transaction is taken once, by the browser that began it, on any instance", arguments: StorageBackend.allCases
    )
    func singleUse(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock()
        let store = SignInTransactionStore(database: test.database, clock: { clock.now })
        let (state, begun) = try await store.begin(
            provider: "corp", surface: .owners, account: "owner-a", returnTo: "/owner", browser: "browser-1")
        #expect(state.utf8.count == 43 && begun.nonce.utf8.count == 43 && begun.codeVerifier.utf8.count == 43)
        #expect(begun.nonce != begun.codeVerifier && begun.codeChallenge.utf8.count == 43)
        let other = SignInTransactionStore(database: try test.another(), clock: { clock.now })
        #expect(try await other.take(state: state, browser: "browser-1") == begun)
        #expect(try await other.take(state: state, browser: "browser-1") == nil)
        #expect(try await store.take(state: state, browser: "browser-1") == nil)

        let (signIn, transaction) = try await store.begin(
            provider: "corp", surface: .pro, account: nil, returnTo: "/inbox/dashboard?tab=1", browser: "browser-1")
        #expect(transaction.account == nil && transaction.surface == .pro)
        let (second, _) = try await store.begin(
            provider: "corp", surface: .pro, account: nil, returnTo: "/inbox", browser: "browser-1")
        #expect(second != signIn)
        #expect(try await store.take(state: signIn, browser: "browser-1") == transaction)
    }

    @Test(
        "another browser's, an expired, an unknown or a tampered state opens nothing, and is used up",
        arguments: StorageBackend.allCases)
    func refused(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock()
        let store = SignInTransactionStore(database: test.database, clock: { clock.now })
        let (state, _) = try await store.begin(
            provider: "corp", surface: .owners, account: nil, returnTo: "/owner", browser: "victim")
        #expect(try await store.take(state: state, browser: "attacker") == nil)
        #expect(try await store.take(state: state, browser: "victim") == nil)

        let (late, _) = try await store.begin(
            provider: "corp", surface: .owners, account: nil, returnTo: "/owner", browser: "victim")
        clock.advance(SignInTransactionStore.lifetime)
        #expect(try await store.take(state: late, browser: "victim") == nil)

        let (kept, begun) = try await store.begin(
            provider: "corp", surface: .owners, account: nil, returnTo: "/owner", browser: "victim")
        var tampered = Array(kept.utf8)
        tampered[0] = tampered[0] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for state in [String(decoding: tampered, as: UTF8.self), "", "short", kept + "x"] {
            #expect(try await store.take(state: state, browser: "victim") == nil)
        }
        #expect(try await store.take(state: kept, browser: "victim") == begun)
    }

    @Test(
        "a burst of sign-ins stops at the cap across instances, with full; a signed-in link never does; expired ones free room (issue 66)",
        arguments: StorageBackend.allCases)
    func signInCap(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock()
        let ceiling = UnauthenticatedRowLimits(perClient: 100, total: 5)
        let here = SignInTransactionStore(database: test.database, clock: { clock.now }, limits: ceiling)
        let there = SignInTransactionStore(database: try test.another(), clock: { clock.now }, limits: ceiling)
        var refused = 0
        for index in 0..<12 {
            do {
                _ = try await (index % 2 == 0 ? here : there).begin(
                    provider: "corp", surface: .owners, account: nil, returnTo: "/", browser: "b\(index)")
            } catch SignInTransactionError.full {
                refused += 1
            }
        }
        #expect(refused == 7)
        let rows = try test.database.writeSync {
            try $0.query("SELECT COUNT(*) AS n FROM signin_transactions", []).first?.int("n") ?? -1
        }
        #expect(rows == 5)
        // A signed-in person linking a provider is not held back by strangers' sign-ins.
        let (state, begun) = try await here.begin(
            provider: "corp", surface: .owners, account: "o-1", returnTo: "/owner", browser: "me")
        #expect(try await here.take(state: state, browser: "me") == begun)
        // Once they expire, sign-ins begin again.
        clock.advance(SignInTransactionStore.lifetime)
        _ = try await here.begin(provider: "corp", surface: .owners, account: nil, returnTo: "/", browser: "late")
        #expect(try await here.purge() == 5)
    }

    @Test(
        "one client's flood of sign-ins fills only its own share: another client still begins one (issue 81)",
        arguments: StorageBackend.allCases)
    func signInSharePerClient(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock()
        let limits = UnauthenticatedRowLimits(perClient: 4, total: 10)
        let here = SignInTransactionStore(database: test.database, clock: { clock.now }, limits: limits)
        let there = SignInTransactionStore(database: try test.another(), clock: { clock.now }, limits: limits)
        func begun(_ client: String, _ count: Int) async throws -> Int {
            var begun = 0
            for index in 0..<count {
                do {
                    _ = try await (index % 2 == 0 ? here : there).begin(
                        provider: "corp", surface: .owners, account: nil, returnTo: "/", browser: "\(client)-\(index)",
                        client: client)
                    begun += 1
                } catch SignInTransactionError.full {}
            }
            return begun
        }
        #expect(try await begun("192.0.2.7", 12) == 4)
        // Another client is not locked out by the flood.
        let (state, transaction) = try await here.begin(
            provider: "corp", surface: .owners, account: nil, returnTo: "/", browser: "mine", client: "198.51.100.4")
        #expect(try await there.take(state: state, browser: "mine") == transaction)
        #expect(try await begun("2001:db8:1:2:0:0:0:0/64", 12) == 4)
        // The ceiling stays above every share: 4 + 4 + one more client's 2 reach 10.
        #expect(try await begun("203.0.113.9", 4) == 2)
        #expect(try await begun("203.0.113.10", 1) == 0)
        // A signed-in person's link counts in neither.
        _ = try await here.begin(
            provider: "corp", surface: .owners, account: "o-1", returnTo: "/owner", browser: "me", client: "192.0.2.7")
        // Once the flood's transactions expire, the client begins again.
        clock.advance(SignInTransactionStore.lifetime)
        #expect(try await begun("192.0.2.7", 1) == 1)
    }

    @Test("expired transactions are purged, live ones kept", arguments: StorageBackend.allCases)
    func purge(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock()
        let store = SignInTransactionStore(database: test.database, clock: { clock.now })
        _ = try await store.begin(provider: "corp", surface: .owners, account: nil, returnTo: "/", browser: "b")
        clock.advance(SignInTransactionStore.lifetime / 2)
        let (live, begun) = try await store.begin(
            provider: "corp", surface: .owners, account: nil, returnTo: "/", browser: "b")
        clock.advance(SignInTransactionStore.lifetime / 2)
        #expect(try await store.purge() == 1)
        #expect(try await store.take(state: live, browser: "b") == begun)
    }

    @Test(
        "a sign-in never returns to another site",
        arguments: ["https://evil.example/", "//evil.example/", "/\\evil.example", "owner", "", "/a b", "/a\u{7}"])
    func returnPath(path: String) async throws {
        let test = try StorageBackend.sqlite.makeDatabase()
        let store = SignInTransactionStore(database: test.database, clock: { 0 })
        await #expect(throws: SignInTransactionError.returnPathNotLocal) {
            try await store.begin(provider: "corp", surface: .owners, account: nil, returnTo: path, browser: "b")
        }
    }

    @Test("an identity links to one account per family and signs into it", arguments: StorageBackend.allCases)
    func linkAndSignIn(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        try await Self.accounts(test.database)
        let clock = TestClock()
        let store = SignInIdentityStore(database: test.database, clock: { clock.now })
        #expect(try await store.signIn(surface: .owners, issuer: Self.issuer, subject: "248289761001") == nil)
        #expect(
            try await store.link(
                surface: .owners, issuer: Self.issuer, subject: "248289761001", provider: "corp", account: "owner-a",
                email: "a@example.com") == .linked)
        #expect(
            try await store.link(
                surface: .owners, issuer: Self.issuer, subject: "248289761001", provider: "corp", account: "owner-a",
                email: nil) == .alreadyLinked)
        #expect(
            try await store.link(
                surface: .owners, issuer: Self.issuer, subject: "248289761001", provider: "corp", account: "owner-b",
                email: "a@example.com") == .linkedToAnother)
        clock.advance(5)
        // Reading the link records no use; signing in does.
        #expect(try await store.linkedAccount(surface: .owners, issuer: Self.issuer, subject: "248289761001") == "owner-a")
        #expect(try await store.identities(surface: .owners, account: "owner-a").first?.lastUsedAt == nil)
        #expect(try await store.linkedAccount(surface: .pro, issuer: Self.issuer, subject: "248289761001") == nil)
        let other = SignInIdentityStore(database: try test.another(), clock: { clock.now })
        #expect(try await other.signIn(surface: .owners, issuer: Self.issuer, subject: "248289761001") == "owner-a")
        // Keyed on issuer and subject: the same subject at another issuer, or another subject, is another identity.
        #expect(try await store.signIn(surface: .owners, issuer: Self.issuer + "/", subject: "248289761001") == nil)
        #expect(try await store.signIn(surface: .owners, issuer: Self.issuer, subject: "248289761002") == nil)
        // The Pro family is separate: the same identity is not a Pro user until linked to one.
        #expect(try await store.signIn(surface: .pro, issuer: Self.issuer, subject: "248289761001") == nil)
        #expect(
            try await store.link(
                surface: .pro, issuer: Self.issuer, subject: "248289761001", provider: "corp", account: "pro-a",
                email: nil) == .linked)
        #expect(try await store.signIn(surface: .pro, issuer: Self.issuer, subject: "248289761001") == "pro-a")

        let linked = try await store.identities(surface: .owners, account: "owner-a")
        #expect(
            linked == [
                SignInIdentity(
                    surface: .owners, issuer: Self.issuer, subject: "248289761001", provider: "corp",
                    account: "owner-a", email: "a@example.com", createdAt: clock.now - 5, lastUsedAt: clock.now)
            ])
        #expect(try await store.identities(surface: .owners, account: "owner-b").isEmpty)
    }

    @Test(
        "only its account unlinks an identity; deleting the account removes its links",
        arguments: StorageBackend.allCases)
    func unlinkAndCascade(_ backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        try await Self.accounts(test.database)
        let store = SignInIdentityStore(database: test.database, clock: { 1_800_000_000 })
        for subject in ["s1", "s2"] {
            _ = try await store.link(
                surface: .owners, issuer: Self.issuer, subject: subject, provider: "corp", account: "owner-a",
                email: nil)
        }
        #expect(try await !store.unlink(surface: .owners, account: "owner-b", issuer: Self.issuer, subject: "s1"))
        #expect(try await !store.unlink(surface: .pro, account: "owner-a", issuer: Self.issuer, subject: "s1"))
        #expect(try await store.unlink(surface: .owners, account: "owner-a", issuer: Self.issuer, subject: "s1"))
        #expect(try await store.signIn(surface: .owners, issuer: Self.issuer, subject: "s1") == nil)
        #expect(try await store.identities(surface: .owners, account: "owner-a").map(\.subject) == ["s2"])
        _ = try await test.database.write { connection in
            try connection.run("DELETE FROM owners WHERE id = 'owner-a'")
        }
        #expect(try await store.signIn(surface: .owners, issuer: Self.issuer, subject: "s2") == nil)
        await #expect(throws: (any Error).self) {
            try await store.link(
                surface: .owners, issuer: Self.issuer, subject: "s3", provider: "corp", account: "no-such-owner",
                email: nil)
        }
    }
}
