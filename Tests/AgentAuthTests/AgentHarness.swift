import AgentClient
import AuthCrypto
import ComputePool
import EmbeddedResources
import Foundation
import HTTP1
import JSON
import JWT
import Logging
import MetricsTestKit
import PosternTestSupport
import ServerKit
import Storage
import Testing

@testable import AgentAuth

/// Keys shared by every harness: generating RSA keys is slow.
enum TestKeys {
    static let hmacSecret = SecureRandom.bytes(32)
    static let rsa = TestRSAKey.shared
    static let keySet = try! JWTKeySet(
        keys: [JWTKey.hmac(kid: "hs-test", secret: hmacSecret), JWTKey.rsa(kid: "rs-test", privateKey: rsa)],
        activeHMAC: "hs-test", activeRSA: "rs-test")
}

/// An AgentAuthService over a fresh database of the given backend, driven through its router.
struct AgentHarness {
    static let publicURL = "http://agents.test:8080"

    /// The test's database, shared with a harness made with `sharing:` (a restart).
    let test: TestDatabase
    let database: any SQLDatabase
    let clock: TestClock
    let service: AgentAuthService
    let router: ContextRouter
    let pool: WorkerPool
    let metrics: TestMetrics
    /// Request ids of the requests answered with a bare 500, as the service reported them.
    let unexpected = RequestIDLog()

    /// Creates a harness; `sharing` reopens another harness's database (a restart). `monotonic` drives
    /// the dynamic-difficulty window; nil: `clock` drives both.
    init(
        _ backend: StorageBackend, difficulty: Int = 0, maxDifficulty: Int = 18, dynamic: Bool = false,
        pool: WorkerPool? = nil,
        sharing: TestDatabase? = nil, clock: TestClock = TestClock(), monotonic: TestClock? = nil,
        metrics: TestMetrics = TestMetrics(), instances: Int = 1
    ) throws {
        if let sharing {
            test = sharing
            database = try sharing.another()
        } else {
            test = try backend.makeDatabase(logger: Logger(label: "test"))
            database = test.database
        }
        self.clock = clock
        self.pool = pool ?? WorkerPool(threads: 2)
        var configuration = AgentAuthConfiguration(
            publicURL: Self.publicURL, issuer: "https://issuer.test", baseDifficulty: difficulty,
            maxDifficulty: maxDifficulty, dynamicDifficulty: dynamic)
        configuration.instances = instances
        service = AgentAuthService(
            configuration: configuration, keys: TestKeys.keySet, database: database,
            ledger: ChallengeLedger(database: database), pool: self.pool, clock: { clock.now },
            monotonicClock: (monotonic ?? clock).monotonic, metricsFactory: metrics,
            onUnexpectedError: unexpected.reporter)
        self.metrics = metrics
        var router = ContextRouter()
        service.register(into: &router)
        self.router = router
    }

    /// Sends a request through the router, as the server would.
    func send(
        _ method: HTTPMethod, _ path: String, bearer: String? = nil, body: String? = nil,
        remoteAddress: String = "192.0.2.10"
    ) async -> HTTPResponse {
        var headers = HTTPHeaders()
        if let bearer { headers.add("Authorization", "Bearer " + bearer) }
        if body != nil { headers.add("Content-Type", "application/json") }
        let request = HTTPRequest(
            method: method, target: path, version: .http1_1, headers: headers, body: Array((body ?? "").utf8),
            remoteAddress: remoteAddress, requestID: "test")
        return await router.respond(to: request)
    }

    /// A fresh challenge: its JWT and what the body says.
    func challenge(remoteAddress: String = "192.0.2.10") async throws -> (token: String, id: String, difficulty: Int) {
        let response = await send(.POST, "/api/v1/challenge", remoteAddress: remoteAddress)
        #expect(response.status.code == 200)
        let body = try response.json()
        let token = try #require(response.bearer)
        return (token, try #require(body["challenge"]?.stringValue), Int(try #require(body["difficulty"]?.intValue)))
    }

    /// Solves challenge `id` with the multi-threaded solver.
    func solve(_ id: String, difficulty: Int) throws -> AgentPoWSolution {
        try AgentPoWSolver(threads: 2).solve(
            challenge: id, salt: AgentAuthConfiguration.defaultPoWSalt, difficulty: difficulty)
    }

    /// The JSON body of a session request.
    static func sessionBody(_ solution: AgentPoWSolution, _ field: String, _ value: String) -> String {
        #"{"powHex":"\#(solution.powHex)","nonce":"\#(solution.nonce)","\#(field)":"\#(value)"}"#
    }

    /// Challenge, proof and `POST /api/v1/session` with `field` (`username` or `apiKey`) set to `value`.
    func session(_ field: String, _ value: String) async throws -> HTTPResponse {
        let challenge = try await challenge()
        let solution = try solve(challenge.id, difficulty: challenge.difficulty)
        return await send(
            .POST, "/api/v1/session", bearer: challenge.token, body: Self.sessionBody(solution, field, value))
    }

    /// Signs `username` up and returns the API key and the session JWT.
    func signup(_ username: String) async throws -> (apiKey: String, session: String) {
        let response = try await session("username", username)
        #expect(response.status.code == 201)
        return (try #require(response.json()["apiKey"]?.stringValue), try #require(response.bearer))
    }
}

extension HTTPResponse {
    /// The body parsed as JSON.
    func json() throws -> JSONValue {
        try JSONValue.parse(body)
    }

    /// The token of the `Authorization: Bearer` header.
    var bearer: String? {
        guard let value = headers["Authorization"], value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst(7))
    }

    /// `error.message` of an agent error body.
    var errorMessage: String? {
        (try? json())?["error"]?["message"]?.stringValue
    }
}

/// Checks that `response` is the agent error `expected`, in the contract's shape.
func expectError(
    _ response: HTTPResponse, _ expected: AgentAuthError, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status.code == expected.status, sourceLocation: sourceLocation)
    #expect(response.headers["Cache-Control"] == "no-store", sourceLocation: sourceLocation)
    #expect(response.headers["Content-Type"] == "application/json; charset=utf-8", sourceLocation: sourceLocation)
    let error = (try? response.json())?["error"]
    #expect(error?["message"]?.stringValue == expected.message, sourceLocation: sourceLocation)
    #expect(error?["hint"]?.stringValue == expected.hint, sourceLocation: sourceLocation)
    #expect(
        error?["docs_url"]?.stringValue == AgentHarness.publicURL + "/llms.txt#" + expected.anchor,
        sourceLocation: sourceLocation)
}
