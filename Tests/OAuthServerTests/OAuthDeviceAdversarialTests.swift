import HTTP1
import OAuthServer
import PosternTestSupport
import Storage
import Testing

/// A volley of device-flow requests that must mint nothing (issue 86's adversarial count): each refused with the RFC's
/// code, and at the end the one device code the owner approved redeemed once, its tokens the only ones written.
@Suite("OAuth device flow: a volley of adversarial requests mints nothing")
struct OAuthDeviceAdversarialTests {
    typealias Flow = OAuthDeviceFlowTests

    /// Rows of `table`.
    static func count(_ harness: OAuthHarness, _ table: String) async throws -> Int64 {
        try await harness.test.database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM \(table)").first?.int("n") ?? -1
        }
    }

    @Test(
        "over 200 refused: 121 polls with the RFC's codes and 100 guessed user codes; one approval redeemed once",
        arguments: StorageBackend.allCases)
    func volley(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let clientID = try await Flow.deviceClient(harness)
        let other = try await Flow.deviceClient(harness)
        let codeClient = try await harness.registerClient()
        let owner = try await harness.owner()
        try await harness.signIn()
        var refusals: [(String, HTTPResponse, String)] = []
        func poll(_ what: String, _ client: String, _ code: String, _ expected: String) async {
            refusals.append((what, await Flow.poll(harness, client, code), expected))
        }

        // Approved and redeemed once; then reused, by its client and by another.
        let approved = try await Flow.start(harness, clientID)
        let approvedCode = try #require(approved["device_code"]?.stringValue)
        let consent = try await Flow.enter(harness, try #require(approved["user_code"]?.stringValue))
        #expect(try await Flow.answer(harness, consent, inbox: owner.inbox, decision: "approve").status == .ok)
        #expect(await Flow.poll(harness, clientID, approvedCode).status == .ok)
        for i in 0..<20 {
            harness.clock.advance(6)
            await poll("reuse \(i)", clientID, approvedCode, "invalid_grant")
            await poll("reuse by another client \(i)", other, approvedCode, "invalid_grant")
        }
        // A pending code polled too fast: slow_down every time, the interval growing.
        let pending = try await Flow.start(harness, clientID)
        let pendingCode = try #require(pending["device_code"]?.stringValue)
        await poll("first poll", clientID, pendingCode, "authorization_pending")
        for i in 0..<20 { await poll("too fast \(i)", clientID, pendingCode, "slow_down") }
        // Unknown, truncated, another client's pending code; a client not registered for the grant.
        for i in 0..<10 {
            await poll("unknown \(i)", clientID, "unknown-device-code-\(i)", "invalid_grant")
            await poll("another client's pending code \(i)", other, pendingCode, "invalid_grant")
            await poll("truncated \(i)", clientID, String(pendingCode.dropLast(i + 1)), "invalid_grant")
            refusals.append(
                (
                    "code-flow client \(i)",
                    await harness.send(
                        .POST, "/oauth/token",
                        form: [
                            ("grant_type", Flow.deviceGrant), ("device_code", pendingCode),
                            ("client_id", codeClient.id),
                        ]),
                    "unauthorized_client"
                ))
        }
        // Denied, then polled; denied then approved (refused on the page, still denied at the token endpoint).
        let denied = try await Flow.start(harness, clientID)
        let deniedCode = try #require(denied["device_code"]?.stringValue)
        let deniedPage = try await Flow.enter(harness, try #require(denied["user_code"]?.stringValue))
        _ = try await Flow.answer(harness, deniedPage, inbox: owner.inbox, decision: "deny")
        #expect(
            try await Flow.answer(harness, deniedPage, inbox: owner.inbox, decision: "approve").status == .badRequest)
        for i in 0..<10 { await poll("denied \(i)", clientID, deniedCode, "access_denied") }
        // Expired: polled, and approved too late.
        let late = try await Flow.start(harness, clientID)
        let lateCode = try #require(late["device_code"]?.stringValue)
        let latePage = try await Flow.enter(harness, try #require(late["user_code"]?.stringValue))
        harness.clock.advance(601)
        #expect(try await Flow.answer(harness, latePage, inbox: owner.inbox, decision: "approve").status == .badRequest)
        for i in 0..<10 { await poll("expired \(i)", clientID, lateCode, "expired_token") }

        var refused = 0
        for (what, response, expected) in refusals {
            #expect(OAuthHarness.error(response) == expected, "\(what)")
            if OAuthHarness.error(response) == expected { refused += 1 }
        }
        // Guessed user codes: five answered "no device is waiting", then every one refused unread (429).
        var statuses: [HTTPStatus] = []
        for first in "BCDFGHJKLM" {
            for second in "NPQRSTVWXZ" {
                let guess = String(repeating: first, count: 4) + "-" + String(repeating: second, count: 4)
                statuses.append(try await Flow.enter(harness, guess).status)
            }
        }
        #expect(
            statuses.prefix(5).allSatisfy { $0 == .badRequest }
                && statuses.dropFirst(5).allSatisfy { $0 == .tooManyRequests })
        let guesses = statuses.count
        #expect(refused == refusals.count && refused + guesses >= 200, "\(refused) + \(guesses)")
        #expect(try await Self.count(harness, "oauth_access_tokens") == 1, "one token: the approved code's")
        #expect(try await Self.count(harness, "oauth_grants") == 1)
    }
}
