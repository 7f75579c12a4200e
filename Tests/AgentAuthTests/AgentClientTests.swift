import AuthCrypto
import Foundation
import HTTP1
import HTTPServer
import JWT
import Logging
import ServerKit
import Testing

@testable import AgentAuth

/// The client flow over real sockets: the code path of `postern agent signup|login`.
@Suite("AgentClient over HTTP")
struct AgentClientTests {
    /// `routes` as a plain `Router` for HTTPServer's `RouterResponder`, each handler resolving its context
    /// from the socket peer (as the app does with no trusted proxy).
    static func plainRouter(_ routes: ContextRouter) -> Router {
        var plain = Router()
        for route in routes.routes {
            let handler: RouteHandler
            switch route.handler {
            case .immediate(let run):
                handler = .immediate { request, parameters in run(request, RequestContext(request), parameters) }
            case .deferred(let run):
                handler = .deferred { request, parameters in await run(request, RequestContext(request), parameters) }
            }
            plain.add(route.method, route.template, bodyLimit: route.bodyLimit, handler)
        }
        return plain
    }

    @Test("signup then login: API key, inbox, session and capability tokens")
    func signupAndLogin() async throws {
        let harness = try AgentHarness(difficulty: 2)
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let server = HTTPServer(
            configuration: configuration, responder: RouterResponder(router: Self.plainRouter(harness.router)),
            logger: Logger(label: "test"))
        let port = try server.start()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let client = try AgentClient(solver: AgentPoWSolver(threads: 2))

        let signup = try await client.signup(url: url, username: "clientagent")
        let apiKey = try #require(signup.apiKey)
        #expect(apiKey.hasPrefix(AgentAPIKey.prefix))
        #expect(signup.inbox == "clientagent@agents.localhost")
        #expect(signup.username == "clientagent")
        #expect(signup.capabilityExpiresIn == 120)
        let issuer = "https://issuer.test"
        let now = harness.clock.now
        let session = try TestKeys.keySet.verify(signup.sessionToken, purpose: "session", issuer: issuer, now: now)
        let capability = try TestKeys.keySet.verify(
            signup.capabilityToken, purpose: "capability", issuer: issuer, now: now)
        #expect(capability.sub == session.sub)

        let login = try await client.login(url: url, apiKey: apiKey)
        #expect(login.inbox == signup.inbox)
        #expect(login.apiKey == nil)
        let loginSession = try TestKeys.keySet.verify(login.sessionToken, purpose: "session", issuer: issuer, now: now)
        #expect(loginSession.sub == session.sub)

        await #expect(throws: AgentClientError.self) {
            try await client.signup(url: url, username: "clientagent")
        }
        do {
            _ = try await client.login(url: url, apiKey: "postern_ak_unknown")
            Issue.record("login with an unknown key succeeded")
        } catch let error as AgentClientError {
            #expect(error.status == 401)
            #expect(error.message == "Invalid API key")
            #expect(error.hint == AgentAuthError.invalidAPIKey.hint)
        }
        await server.shutdown()
    }
}

@Suite("AgentClient reads challenges as the documented clients do")
struct AgentClientChallengeDecodingTests {
    @Test("jti and difficulty come from the unverified JWT payload; a malformed token gives nil")
    func unverifiedClaims() throws {
        let payload = Base64URL.encode(Array(#"{"jti":"abc123","difficulty":7}"#.utf8))
        let claims = try #require(AgentClient.unverifiedClaims("eyJhbGciOiJIUzI1NiJ9.\(payload).c2ln"))
        #expect(claims["jti"] as? String == "abc123")
        #expect(claims["difficulty"] as? Int == 7)
        #expect(AgentClient.unverifiedClaims("only.two") == nil)
        #expect(AgentClient.unverifiedClaims("a.!!!.c") == nil)
    }

    @Test("the salt defaults to the hosted service's")
    func defaultSalt() throws {
        #expect(try AgentClient().salt == AgentAuthConfiguration.defaultPoWSalt)
    }
}
