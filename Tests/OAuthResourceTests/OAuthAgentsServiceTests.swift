import AgentAuth
import Directory
import HTTP1
import OAuthResource
import PosternTestSupport
import ServerKit
import Testing

@Suite("GET /api/v1/agents behind the shared middleware")
struct OAuthAgentsServiceTests {
    func router(_ fixture: OAuthVerifierFixture, requestsPerMinute: Int, enabled: Bool = true) -> ContextRouter {
        var limits = OAuthResourceConfiguration.RateLimits()
        limits.requestsPerMinute = requestsPerMinute
        limits.enabled = enabled
        let clock = fixture.clock
        var router = ContextRouter()
        OAuthAgentsService(
            verifier: fixture.verifier,
            inboxes: AgentOwnedInboxes(
                accounts: AgentAccountStore(database: fixture.test.database), domain: "agents.test",
                clock: { clock.now }),
            publicURL: OAuthVerifierFixture.base, rateLimits: limits, monotonicClock: TestClock().monotonic
        ).register(into: &router)
        return router
    }

    func get(_ router: ContextRouter, token: String?) async -> HTTPResponse {
        var headers = HTTPHeaders()
        if let token { headers.add("Authorization", "Bearer " + token) }
        return await router.respond(
            to: HTTPRequest(
                method: .GET, target: "/api/v1/agents", version: .http1_1, headers: headers, body: [],
                remoteAddress: "192.0.2.7", requestID: "r"))
    }

    @Test(
        "past its per-client rate a request is 429 slow_down with Retry-After, whatever its bearer",
        arguments: StorageBackend.allCases)
    func rateLimited(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        let router = router(fixture, requestsPerMinute: 2)
        let token = try fixture.issue(audience: OAuthVerifierFixture.mcp).token
        #expect(await get(router, token: token).status == .ok)
        #expect(await get(router, token: "postern_ak_nothing").status == .unauthorized)
        let refused = await get(router, token: token)
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers["Retry-After"] != nil)
        #expect(String(decoding: refused.body, as: UTF8.self).contains(#""error":"slow_down""#))

        let unlimited = self.router(fixture, requestsPerMinute: 2, enabled: false)
        for _ in 0..<3 { #expect(await get(unlimited, token: token).status == .ok) }
    }

    @Test(
        "every bearer is verified as an access token: others are 401 invalid_token with the challenge",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let fixture = try OAuthVerifierFixture(backend)
        let router = router(fixture, requestsPerMinute: 600)
        for token in ["postern_ak_nothing", "a.b.c", try fixture.issue(audience: "urn:atomicmail:agent:x").token] {
            let response = await get(router, token: token)
            #expect(response.status == .unauthorized)
            #expect(response.headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
        }
        let missing = await get(router, token: nil)
        #expect(missing.status == .unauthorized && missing.headers["WWW-Authenticate"] == "Bearer")
        #expect(try fixture.counted("invalid") == 2)
    }
}
