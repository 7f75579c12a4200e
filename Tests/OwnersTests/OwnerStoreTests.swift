import BrowserPages
import ClientAddress
import Owners
import PosternTestSupport
import Testing

@Suite("Owners: accounts and sign-in backoff")
struct OwnerStoreTests {
    static let ip = ClientAddressKey(peer: "192.0.2.9")

    @Test(
        "an owner is created with a lower-cased email and signs in with any case of it",
        arguments: StorageBackend.allCases)
    func createAndSignIn(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owner = try await harness.service.owners.create(email: "Ada@Example.COM", password: "correct horse")
        #expect(owner.email == "ada@example.com")
        #expect(
            try await harness.service.owners.signIn(email: "ADA@example.com", password: "correct horse", client: Self.ip)
                == .signedIn(owner))
        #expect(
            try await harness.service.owners.signIn(email: "ada@example.com", password: "wrong horse!", client: Self.ip)
                == .refused)
        #expect(try await harness.service.owners.list() == [owner])
    }

    @Test("bad emails, short passwords and taken emails are refused", arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owners = harness.service.owners
        await #expect(throws: OwnerError.invalidEmail) { try await owners.create(email: "not-an-email", password: "12345678") }
        await #expect(throws: OwnerError.invalidEmail) { try await owners.create(email: "a b@example.com", password: "12345678") }
        await #expect(throws: OwnerError.weakPassword) { try await owners.create(email: "a@example.com", password: "1234567") }
        _ = try await owners.create(email: "a@example.com", password: "12345678")
        await #expect(throws: OwnerError.emailTaken) { try await owners.create(email: "A@example.com", password: "12345678") }
        withExtendedLifetime(harness) {}
    }

    @Test(
        "failures slow the email after five, known or unknown alike, and a success clears the count",
        arguments: StorageBackend.allCases)
    func backoff(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owners = harness.service.owners
        let owner = try await owners.create(email: "ada@example.com", password: "correct horse")
        for email in ["ada@example.com", "nobody@example.com"] {
            for _ in 0..<5 {
                #expect(
                    try await owners.signIn(email: email, password: "guess guess", client: Self.ip) == .refused)
            }
            // The sixth failure blocks for 2 s; while blocked even the right password is not checked.
            #expect(try await owners.signIn(email: email, password: "guess guess", client: Self.ip) == .refused)
            #expect(
                try await owners.signIn(email: email, password: "correct horse", client: Self.ip)
                    == .slowDown(retryAfter: 2))
        }
        // Another email is not slowed by these failures, from the same address either.
        _ = try await owners.create(email: "bob@example.com", password: "battery staple")
        #expect(
            try await owners.signIn(email: "bob@example.com", password: "battery staple", client: Self.ip)
                != .refused)
        harness.clock.advance(2)
        #expect(
            try await owners.signIn(email: "ada@example.com", password: "correct horse", client: Self.ip)
                == .signedIn(owner))
        #expect(try await owners.signIn(email: "ada@example.com", password: "guess guess", client: Self.ip) == .refused)
        #expect(
            try await owners.signIn(email: "ada@example.com", password: "correct horse", client: Self.ip)
                == .signedIn(owner))
    }

    @Test("the delay doubles from 2 s after the free failures and stops at the cap")
    func delays() {
        let backoff = SignInBackoff()
        #expect((1...5).map { backoff.delay(afterFailures: $0) } == [0, 0, 0, 0, 0])
        #expect((6...9).map { backoff.delay(afterFailures: $0) } == [2, 4, 8, 16])
        #expect(backoff.delay(afterFailures: 15) == 900)
        #expect(backoff.delay(afterFailures: 1_000) == 900)
        #expect(backoff.emailDelay(afterFailures: 100) == 0 && backoff.emailDelay(afterFailures: 101) == 2)
    }

    @Test("removing an owner ends their sessions", arguments: StorageBackend.allCases)
    func removal(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owner = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let token = try await harness.service.browser.sessions.open(ownerID: owner.id)
        #expect(try await harness.service.browser.sessions.owner(token: token) == owner)
        #expect(try await harness.service.owners.remove(email: "ADA@example.com"))
        #expect(try await harness.service.browser.sessions.owner(token: token) == nil)
        #expect(try await !harness.service.owners.remove(email: "ada@example.com"))
    }

    @Test(
        "setting a password: the new one signs in, the old does not, every session ends; short or unknown refused",
        arguments: StorageBackend.allCases)
    func setPassword(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        let owners = harness.service.owners, sessions = harness.service.browser.sessions
        let owner = try await owners.create(email: "ada@example.com", password: "correct horse")
        let other = try await owners.create(email: "bob@example.com", password: "battery staple")
        let tokens = [try await sessions.open(ownerID: owner.id), try await sessions.open(ownerID: owner.id)]
        let bobs = try await sessions.open(ownerID: other.id)
        #expect(try await owners.setPassword(email: "Ada@example.com", password: "new horse!"))
        for token in tokens { #expect(try await sessions.owner(token: token) == nil) }
        #expect(try await sessions.owner(token: bobs) == other)
        #expect(try await owners.signIn(email: "ada@example.com", password: "correct horse", client: Self.ip) == .refused)
        #expect(try await owners.signIn(email: "ada@example.com", password: "new horse!", client: Self.ip) == .signedIn(owner))
        await #expect(throws: OwnerError.weakPassword) { try await owners.setPassword(email: "ada@example.com", password: "short") }
        #expect(try await !owners.setPassword(email: "zed@example.com", password: "long enough"))
    }

    @Test("a session ends at its lifetime and at sign-out", arguments: StorageBackend.allCases)
    func sessions(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend) { $0.sessionLifetime = 60 }
        let sessions = harness.service.browser.sessions
        let owner = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        let first = try await sessions.open(ownerID: owner.id)
        harness.clock.advance(59)
        #expect(try await sessions.owner(token: first) == owner)
        harness.clock.advance(1)
        #expect(try await sessions.owner(token: first) == nil)
        let second = try await sessions.open(ownerID: owner.id)
        #expect(try await sessions.close(token: second) == nil)
        #expect(try await sessions.owner(token: second) == nil)
        #expect(try await sessions.owner(token: "short") == nil)
        // A provider's session says so when it ends (its sign-out may continue at the provider), once.
        let third = try await sessions.open(ownerID: owner.id, provider: "corp")
        #expect(try await sessions.owner(token: third) == owner)
        #expect(try await sessions.close(token: third) == "corp")
        #expect(try await sessions.owner(token: third) == nil)
        #expect(try await sessions.close(token: third) == nil)
    }
}
