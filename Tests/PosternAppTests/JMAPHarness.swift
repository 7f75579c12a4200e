import AgentAuth
import AgentClient
import AuthCrypto
import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// An agent signed up over the real HTTP API, holding the capability JWT that opens JMAP.
struct JMAPAgent: JMAPTestAccount {
    let username: String
    /// The agent's inbox address (the capability token's `inboxId`).
    let address: String
    /// The session JWT (purpose `session`), which JMAP must refuse.
    let sessionToken: String
    /// The capability JWT (purpose `capability`, scope `jmap`).
    let capability: String
    /// The JMAP account id (the capability token's `sub`).
    let accountID: String
}

/// A real Postern (agent proof of work at difficulty 0) and one client for it: agents sign up through
/// `/api/v1/challenge`, `/api/v1/session` and `/api/v1/capability`, then speak JMAP with their capability token.
/// One test uses one harness at a time, hence `@unchecked Sendable` (as ``TestHTTPClient``).
struct JMAPHarness: JMAPTestClient, @unchecked Sendable {
    let client: TestHTTPClient
    /// The server's public base URL (no trailing slash).
    let baseURL: String
    /// The agent inbox domain of the server's configuration.
    let agentDomain: String
    private let inProcess: TestServer?
    private let child: ServeChild?
    private let childData: String?

    /// Where the shared JMAP calls (``JMAPTestClient``) go.
    var requests: TestHTTPClient { client }

    /// An in-process server (``TestServer``); `adjust` edits its configuration last, `clock` is its wall clock (the
    /// system's when nil).
    static func start(
        _ backend: StorageBackend, rateLimits: Bool = false, inboxQuota: Int64? = nil,
        adjust: (inout PosternConfiguration) -> Void = { _ in }, clock: (@Sendable () -> Int64)? = nil
    ) async throws -> JMAPHarness {
        let server = try await TestServer.start(
            backend, { configuration in
                configuration.agent.baseDifficulty = 0
                configuration.agent.dynamicDifficulty = false
                configuration.rateLimits.enabled = rateLimits
                if let inboxQuota { configuration.agent.inboxQuota = inboxQuota }
                adjust(&configuration)
            }, clock: clock)
        return JMAPHarness(
            client: try server.client(), baseURL: server.runtime.identity.baseURL,
            agentDomain: server.runtime.configuration.agent.inboxDomain, inProcess: server, child: nil, childData: nil)
    }

    /// How long the child-process harness's client waits for a byte of an answer, in seconds. Its requests make the
    /// server build answers of tens of megabytes (the resource budgets' doubling echoes: 21 s for the whole test on an
    /// idle machine, in the debug build); beside a build at load 11-15 the answer came after more than the client's
    /// usual 30 s (120 since), and the client's own receive timeout, not the server, gave up on it. A slow answer is
    /// still an answer: the harness waits for it.
    static let childReceiveTimeout = 300

    /// `postern serve` as a child process (the built executable, port 0, a fresh data directory), for requests
    /// that could bring the server process down: a crash there fails a test instead of the whole test run.
    /// With `addressSpace`, under `prlimit --as` (bytes of virtual memory): an allocation past it kills the
    /// process, as a container's memory limit would.
    static func startProcess(addressSpace: Int? = nil) async throws -> JMAPHarness {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("postern-jmap-\(UUID())").path
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("POSTERN_") && !$0.key.hasPrefix("JWT_")
        }
        environment["POSTERN_AGENT_POW_DIFFICULTY"] = "0"
        environment["POSTERN_AGENT_POW_DYNAMIC"] = "off"
        environment["POSTERN_RATE_LIMITS"] = "off"
        environment["POSTERN_SMTP"] = "off"
        environment["POSTERN_LOG_LEVEL"] = "warning"
        // A crash prints its one-line reason, not a backtrace (the collected output keeps only its tail).
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let childEnvironment = environment
        let child = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let serve = ["serve", "--port", "0", "--data-dir", data]
                    guard let addressSpace else {
                        return try ServeChild(
                            executable: ServeProcessTests.executable, arguments: serve, environment: childEnvironment)
                    }
                    return try ServeChild(
                        executable: URL(fileURLWithPath: "/usr/bin/prlimit"),
                        arguments: ["--as=\(addressSpace)", "--", ServeProcessTests.executable.path] + serve,
                        environment: childEnvironment)
                })
            }
        }
        return JMAPHarness(
            client: try TestHTTPClient(port: child.port, receiveTimeout: Self.childReceiveTimeout),
            baseURL: "http://127.0.0.1:\(child.port)",
            agentDomain: PosternConfiguration().agent.inboxDomain, inProcess: nil, child: child, childData: data)
    }

    /// The in-process server (only for harnesses from ``start()``).
    var server: TestServer {
        guard let inProcess else { preconditionFailure("a child-process harness has no in-process server") }
        return inProcess
    }

    /// Whether the child process still runs (always true in process).
    var isRunning: Bool { child?.isRunning ?? true }

    /// The child process's last output (empty in process), once it has exited or after 3 s: what a crash printed.
    var output: String {
        guard let child else { return "" }
        let deadline = Date().addingTimeInterval(3)
        while child.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 0.2)
        let status = child.isRunning ? "still running" : "exited, status \(child.process.terminationStatus)"
        return "[\(status)]\n" + child.output()
    }

    func stop() async {
        if let inProcess { await inProcess.stop() }
        if let child {
            child.terminate()
            if let childData { try? FileManager.default.removeItem(atPath: childData) }
        }
    }

    // MARK: signing up

    /// Signs `username` up (challenge, proof, session) and takes a capability token for it.
    func signUp(_ username: String) async throws -> JMAPAgent {
        try await openSession(["username": username], name: username)
    }

    /// Logs in with an inbox API key (challenge, proof, session) and takes a capability token, as an agent whose inbox
    /// an owner made would.
    func logIn(apiKey: String, name: String) async throws -> JMAPAgent {
        try await openSession(["apiKey": apiKey], name: name)
    }

    private func openSession(_ credential: [String: String], name username: String) async throws -> JMAPAgent {
        let challenge = try await client.request("POST", "/api/v1/challenge")
        #expect(challenge.status == 200)
        let challengeJWT = try #require(challenge.bearer)
        let challengeClaims = try Self.claims(challengeJWT)
        let challengeID = try #require(challengeClaims["jti"] as? String)
        let difficulty = try #require(challengeClaims["difficulty"] as? Int)
        let salt = try #require(try challenge.json()["salt"] as? String)
        // The solver blocks its threads: keep it off the cooperative pool the in-process server needs.
        let solution = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try AgentPoWSolver(threads: 1).solve(challenge: challengeID, salt: salt, difficulty: difficulty)
                })
            }
        }
        let signup = try await client.json(
            "POST", "/api/v1/session",
            ["powHex": solution.powHex, "nonce": String(solution.nonce)].merging(credential) { $1 },
            headers: [("Authorization", "Bearer \(challengeJWT)")])
        try #require([200, 201].contains(signup.status), "session answered \(signup.status): \(signup.text)")
        let sessionToken = try #require(signup.bearer)
        let capabilityResponse = try await client.request(
            "POST", "/api/v1/capability", headers: [("Authorization", "Bearer \(sessionToken)")])
        try #require(capabilityResponse.status == 200, "capability answered \(capabilityResponse.status)")
        let capability = try #require(capabilityResponse.bearer)
        let claims = try Self.claims(capability)
        return JMAPAgent(
            username: username, address: try #require(claims["inboxId"] as? String), sessionToken: sessionToken,
            capability: capability, accountID: try #require(claims["sub"] as? String))
    }

    /// A JWT's payload, unverified.
    static func claims(_ jwt: String) throws -> [String: Any] {
        let parts = jwt.split(separator: ".")
        let payload = try #require(parts.count == 3 ? Base64URL.decode(String(parts[1])) : nil)
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }
}
