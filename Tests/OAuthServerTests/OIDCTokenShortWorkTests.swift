import ComputePool
import Dispatch
import HTTP1
import JSON
import OAuthServer
import PosternTestSupport
import ServerKit
import Synchronization
import Testing

/// The token endpoint's relying-party exchange as short work (issue 88): on SQLite it reads, signs and hands its write
/// off where it is called, never on the worker pool; on PostgreSQL it stays a task.
@Suite("OpenID Provider: the code exchange as short work", .timeLimit(.minutes(1)))
struct OIDCTokenShortWorkTests {
    /// How many of the pool's threads a ``hold(_:threads:)`` holds so far.
    final class Held: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Holds every thread of `pool` until `release` is called; returns once they are all held.
    static func hold(_ pool: WorkerPool, threads: Int) async throws
        -> (release: @Sendable () -> Void, done: Task<Void, any Error>)
    {
        let held = Held()
        let gate = DispatchSemaphore(value: 0)
        let done = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<threads {
                    group.addTask {
                        try await pool.run {
                            held.count.add(1, ordering: .relaxed)
                            gate.wait()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        while held.count.load(ordering: .relaxed) < threads { try await Task.sleep(for: .milliseconds(5)) }
        return ({ for _ in 0..<threads { gate.signal() } }, done)
    }

    @Test("the token route is short work on SQLite and a task on PostgreSQL", arguments: StorageBackend.allCases)
    func routeKind(backend: StorageBackend) async throws {
        let fixture = try await RelyingPartyFixture(backend)
        let match = fixture.harness.router.match(method: .POST, path: "/oauth/token")
        var kind = "none"
        if case .found(let matched, _) = match {
            switch matched.handler {
            case .shortCompleting: kind = "shortCompleting"
            case .deferred: kind = "deferred"
            default: kind = "other"
            }
        }
        #expect(kind == (backend == .sqlite ? "shortCompleting" : "deferred"))
    }

    @Test("on SQLite a relying party's code is exchanged, raced and replayed with the worker pool's threads held")
    func shortOnSQLite() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite, firstParty: true)
        try await fixture.harness.signIn()
        let code = try #require(OAuthHarness.location(await fixture.authorize())["code"])
        let raced = try #require(OAuthHarness.location(await fixture.authorize())["code"])

        // Both of the pool's threads held: an exchange that needed the pool would wait past the suite's time limit.
        let (release, done) = try await Self.hold(fixture.harness.pool, threads: 2)
        let first = await fixture.token(code)
        #expect(first.status == .ok)
        let accessToken = try #require(OAuthHarness.json(first)?["access_token"]?.stringValue)
        let idToken = try #require(OAuthHarness.json(first)?["id_token"]?.stringValue)
        #expect(try fixture.verified(idToken).sub == fixture.ownerID)
        // A replay mints nothing and revokes what the first use issued (RFC 6749 section 4.1.2).
        let replay = await fixture.token(code)
        #expect(OAuthHarness.error(replay) == "invalid_grant")
        #expect(OAuthHarness.json(replay)?["id_token"] == nil)
        // Two exchanges of one code at once: the write decides, exactly one is answered with tokens.
        async let one = fixture.token(raced)
        async let two = fixture.token(raced)
        let statuses = await [one.status, two.status]
        #expect(statuses.filter { $0 == .ok }.count == 1)
        release()
        try await done.value

        let revoked = await fixture.harness.send(
            .GET, "/oauth/userinfo", headers: [("Authorization", "Bearer " + accessToken)])
        #expect(revoked.status == .unauthorized)
    }

    @Test("with the OpenID Provider on SQLite, an app's code and a relying party's refresh still go to the task")
    func otherGrants() async throws {
        let fixture = try await RelyingPartyFixture(.sqlite)
        let harness = fixture.harness
        let (clientID, _) = try await harness.registerClient()
        let owner = try await harness.owner("app-owner@example.com", inbox: "app-inbox")
        let issued = try await harness.code(clientID: clientID, ownerID: owner.id, agentID: owner.inbox)
        let app = await harness.exchange(issued.code, clientID: clientID, verifier: issued.verifier)
        #expect(app.status == .ok)
        #expect(OAuthHarness.json(app)?["refresh_token"]?.stringValue != nil)
        #expect(OAuthHarness.json(app)?["id_token"] == nil)
        // The relying party's own secret with another grant: the task's refresh, which refuses a party without mail
        // access (it holds no refresh tokens), as before.
        let refresh = await harness.send(
            .POST, "/oauth/token", form: [("grant_type", "refresh_token"), ("refresh_token", "nope")],
            headers: [fixture.basic])
        #expect(OAuthHarness.error(refresh) == "unauthorized_client")
    }
}
