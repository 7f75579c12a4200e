import AgentClient
import AuthCrypto
import HTTP1
import JWT
import PosternTestSupport
import Storage
import Testing

@testable import AgentAuth

@Suite("POST /api/v1/session")
struct AgentSessionEndpointTests {
    @Test(
        "Signup: 201 with a key shown once, stored only as its SHA-256 digest, and a session JWT",
        arguments: StorageBackend.allCases)
    func signup(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 2)
        let response = try await harness.session("username", "myagent")
        #expect(response.status.code == 201)
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = try response.json()
        #expect(body.objectValue?.map(\.0) == ["apiKey", "inbox", "username", "_next"])
        let apiKey = try #require(body["apiKey"]?.stringValue)
        #expect(apiKey.hasPrefix(AgentAPIKey.prefix))
        #expect(Base64URL.decode(String(apiKey.dropFirst(AgentAPIKey.prefix.count)))?.count == 32)
        #expect(body["inbox"]?.stringValue == "myagent@agents.localhost")
        #expect(body["username"]?.stringValue == "myagent")
        #expect((body["_next"]?.arrayValue?.count ?? 0) > 0)

        let session = try #require(response.bearer)
        let claims = try TestKeys.keySet.verify(
            session, policy: harness.service.sessionPolicy, now: harness.clock.now)
        #expect(claims["inboxId"]?.stringValue == "myagent@agents.localhost")
        #expect(claims.exp == harness.clock.now + 3600)
        let rows = try harness.database.readSync { try $0.query("SELECT * FROM agent_accounts") }
        #expect(rows.count == 1)
        #expect(rows[0].text("id") == claims.sub)
        #expect(rows[0].text("id")?.count == 36)
        #expect(rows[0].blob("api_key_digest") == SHA256.hash(Array(apiKey.utf8)))
        #expect(!rows[0].values.contains(.text(apiKey)))
    }

    @Test("Login: 200 with the inbox and a session for the same account", arguments: StorageBackend.allCases)
    func login(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 1)
        let (apiKey, signupSession) = try await harness.signup("loginagent")
        let response = try await harness.session("apiKey", apiKey)
        #expect(response.status.code == 200)
        let body = try response.json()
        #expect(body.objectValue?.map(\.0) == ["inbox", "_next"])
        #expect(body["inbox"]?.stringValue == "loginagent@agents.localhost")
        let now = harness.clock.now
        let first = try TestKeys.keySet.verify(signupSession, policy: harness.service.sessionPolicy, now: now)
        let second = try TestKeys.keySet.verify(
            try #require(response.bearer), policy: harness.service.sessionPolicy, now: now)
        #expect(first.sub == second.sub)
        #expect(first.jti != second.jti)
    }

    @Test("Nonce as a JSON integer and unknown utm_* fields are accepted", arguments: StorageBackend.allCases)
    func integerNonce(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 1)
        let challenge = try await harness.challenge()
        let solution = try harness.solve(challenge.id, difficulty: challenge.difficulty)
        let body =
            #"{"utm_source":"x","powHex":"\#(solution.powHex)","nonce":\#(solution.nonce),"username":"intnonce"}"#
        let response = await harness.send(.POST, "/api/v1/session", bearer: challenge.token, body: body)
        #expect(response.status.code == 201)
    }

    @Test(
        "No bearer, a garbage bearer, or an expired challenge: 401 Invalid or expired challenge",
        arguments: StorageBackend.allCases)
    func badChallenge(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend)
        let challenge = try await harness.challenge()
        let solution = try harness.solve(challenge.id, difficulty: 0)
        let body = AgentHarness.sessionBody(solution, "username", "expired1")
        expectError(await harness.send(.POST, "/api/v1/session", body: body), .invalidChallenge)
        expectError(await harness.send(.POST, "/api/v1/session", bearer: "not.a.jwt", body: body), .invalidChallenge)
        harness.clock.advance(180 + 31)
        expectError(
            await harness.send(.POST, "/api/v1/session", bearer: challenge.token, body: body), .invalidChallenge)
    }

    @Test("A challenge within the 30 s leeway after expiry is still accepted", arguments: StorageBackend.allCases)
    func leeway(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend)
        let challenge = try await harness.challenge()
        let solution = try harness.solve(challenge.id, difficulty: 0)
        harness.clock.advance(180 + 29)
        let response = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(solution, "username", "lateagent"))
        #expect(response.status.code == 201)
    }

    @Test("A replayed solution gets 401 Invalid or expired challenge", arguments: StorageBackend.allCases)
    func replay(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 1)
        let challenge = try await harness.challenge()
        let solution = try harness.solve(challenge.id, difficulty: challenge.difficulty)
        let first = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(solution, "username", "replay1"))
        #expect(first.status.code == 201)
        let second = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(solution, "username", "replay2"))
        expectError(second, .invalidChallenge)
    }

    @Test("A consumed challenge stays consumed after a restart", arguments: StorageBackend.allCases)
    func replayAfterRestart(_ backend: StorageBackend) async throws {
        let clock = TestClock()
        let harness = try AgentHarness(backend, difficulty: 0, clock: clock)
        let challenge = try await harness.challenge()
        let solution = try harness.solve(challenge.id, difficulty: 0)
        let body = AgentHarness.sessionBody(solution, "username", "restart1")
        #expect(await harness.send(.POST, "/api/v1/session", bearer: challenge.token, body: body).status.code == 201)
        let restarted = try AgentHarness(backend, difficulty: 0, sharing: harness.test, clock: clock)
        let again = AgentHarness.sessionBody(solution, "username", "restart2")
        expectError(
            await restarted.send(.POST, "/api/v1/session", bearer: challenge.token, body: again), .invalidChallenge)
        withExtendedLifetime(harness) {}  // the first harness owns the data directory
    }

    @Test(
        "A wrong nonce gets 401 Proof of work does not match the challenge, and uses the challenge up",
        arguments: StorageBackend.allCases)
    func wrongNonce(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let challenge = try await harness.challenge()
        let solution = try harness.solve(challenge.id, difficulty: 0)
        let wrong = AgentPoWSolution(nonce: solution.nonce + 1, powHex: solution.powHex)
        let response = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(wrong, "username", "wrongnonce"))
        expectError(response, .powMismatch)
        let retry = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(solution, "username", "wrongnonce"))
        expectError(retry, .invalidChallenge)
    }

    @Test(
        "Too few leading zero bits: 400 before the challenge is consumed, so it can still be used",
        arguments: StorageBackend.allCases)
    func tooFewBits(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 3)
        let challenge = try await harness.challenge()
        // 0x2f…: two leading zero bits, one too few.
        let weak = AgentPoWSolution(nonce: 0, powHex: "2" + String(repeating: "f", count: 127))
        let response = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(weak, "username", "fewbits"))
        expectError(response, .insufficientWork)
        let solution = try harness.solve(challenge.id, difficulty: 3)
        let retry = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(solution, "username", "fewbits"))
        #expect(retry.status.code == 201)
    }

    @Test(
        "Malformed bodies get 400 without consuming the challenge",
        arguments: StorageBackend.allCases, [
            ("", AgentAuthError.malformedBody),
            ("{", .malformedBody),
            // The one request-body rule: a duplicate key, or nesting past 32, is a malformed body.
            (#"{"powHex":"00","nonce":"0","username":"dupe","username":"dupe"}"#, .malformedBody),
            (
                #"{"powHex":"00","nonce":"0","username":"deepbody","x":"# + String(repeating: "[", count: 32)
                    + String(repeating: "]", count: 32) + "}", .malformedBody
            ),
            (#"{"powHex":"00","nonce":"0"}"#, .usernameXorAPIKey),
            (#"{"powHex":"00","nonce":"0","username":"bothfields","apiKey":"k"}"#, .usernameXorAPIKey),
            (#"{"powHex":"00","nonce":"zero","username":"badnonce"}"#, .invalidNonce),
            (#"{"powHex":"00","nonce":"0","username":"shorthex"}"#, .invalidPowHex),
        ])
    func malformed(_ backend: StorageBackend, _ row: (String, AgentAuthError)) async throws {
        let (body, expected) = row
        let harness = try AgentHarness(backend, difficulty: 0)
        let challenge = try await harness.challenge()
        expectError(await harness.send(.POST, "/api/v1/session", bearer: challenge.token, body: body), expected)
        let solution = try harness.solve(challenge.id, difficulty: 0)
        let retry = await harness.send(
            .POST, "/api/v1/session", bearer: challenge.token,
            body: AgentHarness.sessionBody(solution, "username", "afterbad"))
        #expect(retry.status.code == 201)
    }

    @Test("The token is checked before the body", arguments: StorageBackend.allCases)
    func tokenFirst(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend)
        expectError(await harness.send(.POST, "/api/v1/session", bearer: "x", body: "{"), .invalidChallenge)
    }

    @Test("Usernames: invalid and reserved 400, taken 409", arguments: StorageBackend.allCases)
    func usernames(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        expectError(try await harness.session("username", "Bad Name"), .invalidUsername)
        expectError(try await harness.session("username", "abc"), .invalidUsername)
        expectError(try await harness.session("username", "postmaster"), .reservedUsername)
        _ = try await harness.signup("takenname")
        expectError(try await harness.session("username", "takenname"), .usernameTaken)
    }

    @Test("An unknown, malformed or revoked API key gets 401 Invalid API key", arguments: StorageBackend.allCases)
    func unknownKey(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        expectError(try await harness.session("apiKey", AgentAPIKey.generate()), .invalidAPIKey)
        expectError(try await harness.session("apiKey", "nonsense"), .invalidAPIKey)
        let (apiKey, _) = try await harness.signup("revokeme")
        #expect(try await harness.service.accountStore.revoke(username: "revokeme", now: harness.clock.now))
        expectError(try await harness.session("apiKey", apiKey), .invalidAPIKey)
    }

    @Test("A session or capability JWT presented as the challenge gets 401", arguments: StorageBackend.allCases)
    func wrongPurposeAsChallenge(_ backend: StorageBackend) async throws {
        let harness = try AgentHarness(backend, difficulty: 0)
        let (_, session) = try await harness.signup("purposes")
        let capability = try #require(
            await harness.send(.POST, "/api/v1/capability", bearer: session).bearer)
        let body = #"{"powHex":"\#(String(repeating: "0", count: 128))","nonce":"0","username":"purposes2"}"#
        expectError(await harness.send(.POST, "/api/v1/session", bearer: session, body: body), .invalidChallenge)
        expectError(await harness.send(.POST, "/api/v1/session", bearer: capability, body: body), .invalidChallenge)
    }
}
