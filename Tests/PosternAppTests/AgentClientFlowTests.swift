import AgentAuth
import AgentClient
import Directory
import Foundation
import JWT
import PosternTestSupport
import Testing

@testable import PosternApp

/// The client flow over real sockets against the real server: the code path of `postern agent signup|login`.
@Suite("AgentClient against a running Postern")
struct AgentClientFlowTests {
    @Test(
        "signup then login: API key, inbox, session and capability tokens; refusals carry the server's message",
        arguments: StorageBackend.allCases)
    func signupAndLogin(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let client = try AgentClient(solver: AgentPoWSolver(threads: 2))

        let signup = try await client.signup(url: url, username: "clientagent")
        let apiKey = try #require(signup.apiKey)
        #expect(apiKey.hasPrefix(AgentAPIKey.prefix))
        #expect(signup.inbox == "clientagent@agents.localhost")
        #expect(signup.username == "clientagent")
        #expect(signup.capabilityExpiresIn == 120)
        let issuer = server.runtime.identity.issuer
        let now = Int64(Date().timeIntervalSince1970)
        let keys = server.runtime.keys
        let sessionPolicy = JWTPolicy(purpose: .session, issuer: issuer, maximumLifetime: 3600)
        let capabilityPolicy = CapabilityClaims.policy(issuer: issuer, audience: "api-service", lifetime: 120)
        let session = try keys.verify(signup.sessionToken, policy: sessionPolicy, now: now)
        let capability = try keys.verify(signup.capabilityToken, policy: capabilityPolicy, now: now)
        #expect(capability.sub == session.sub)

        let login = try await client.login(url: url, apiKey: apiKey)
        #expect(login.inbox == signup.inbox)
        #expect(login.apiKey == nil)
        let loginSession = try keys.verify(login.sessionToken, policy: sessionPolicy, now: now)
        #expect(loginSession.sub == session.sub)

        await #expect(throws: AgentClientError.self) {
            try await client.signup(url: url, username: "clientagent")
        }
        let refusal = await #expect(throws: AgentClientError.self) {
            try await client.login(url: url, apiKey: "postern_ak_unknown")
        }
        #expect(refusal?.status == 401)
        #expect(refusal?.message == "Invalid API key")
        #expect(refusal?.hint == AgentAuthError.invalidAPIKey.hint)
        await server.stop()
    }
}
