import AgentPoW
import AuthCrypto
import Fetch
import Foundation
import OutboundSocket

/// What an agent holds after signing up or logging in.
public struct AgentCredentials: Sendable, Equatable {
    /// The API key, only after a signup (the server shows it once).
    public let apiKey: String?
    /// The inbox address, `<username>@<inbox domain>`.
    public let inbox: String
    /// The username, only after a signup.
    public let username: String?
    /// The session JWT (one hour by default).
    public let sessionToken: String
    /// A capability JWT for JMAP requests (two minutes by default).
    public let capabilityToken: String
    /// Seconds until the capability JWT expires.
    public let capabilityExpiresIn: Int
}

/// A challenge as the client receives it.
public struct AgentChallenge: Sendable, Equatable {
    /// The challenge JWT from the response `Authorization` header.
    public let token: String
    /// The challenge id (`jti`).
    public let id: String
    /// Leading zero bits required.
    public let difficulty: Int
    /// Salt text for scrypt.
    public let salt: String
}

/// What the client tells its user while it works: each challenge received (with its difficulty) before it is
/// solved, and the search's progress about once a second.
public struct AgentClientEvents: Sendable {
    public var challenge: @Sendable (AgentChallenge) -> Void
    public var progress: @Sendable (AgentPoWProgress) -> Void

    public init(
        challenge: @escaping @Sendable (AgentChallenge) -> Void, progress: @escaping @Sendable (AgentPoWProgress) -> Void
    ) {
        self.challenge = challenge
        self.progress = progress
    }
}

/// A refusal from the server, or a response the client cannot use.
public struct AgentClientError: Error, Sendable, CustomStringConvertible {
    /// HTTP status, or 0 when the response never arrived or was not HTTP.
    public let status: Int
    /// The server's `error.message`, or what went wrong locally.
    public let message: String
    /// The server's `error.hint`, when there is one.
    public let hint: String?

    /// `"409 Username already taken (hint)"`.
    public var description: String {
        "\(status == 0 ? "" : "\(status) ")\(message)" + (hint.map { " (\($0))" } ?? "")
    }
}

/// The agent side of the flow over HTTP (challenge, proof of work, session, capability), as a client
/// written for Atomic Mail does it. Used by `postern agent signup|login` and by end-to-end tests.
public struct AgentClient: Sendable {
    /// Solves the challenges.
    public let solver: AgentPoWSolver
    /// The HTTP client requests go through.
    private let http: Fetcher

    /// Creates a client.
    ///
    /// Requests go through the `Fetch` module's client (plain HTTP or TLS with the system trust store,
    /// private and loopback addresses allowed), not URLSession: FoundationNetworking would load libcurl
    /// and some twenty libraries into the server process too (about 4.5 MiB resident and several ms
    /// of start-up), since the server and this client are one executable.
    /// - Parameters:
    ///   - solver: the proof-of-work solver (default: every core).
    ///   - timeout: the deadline of each request. Default 30 s.
    ///   - salt: the proof-of-work salt text when the server's challenge body does not carry one (the hosted
    ///     service sends only the token); default: the hosted service's salt.
    /// - Throws: `FetchError` when the client cannot be set up.
    public init(
        solver: AgentPoWSolver = AgentPoWSolver(), timeout: Duration = .seconds(30),
        salt: String = AgentProofOfWork.defaultSalt
    ) throws {
        self.solver = solver
        self.salt = salt
        self.http = try Self.fetcher(timeout: timeout)
    }

    /// The HTTP client of `postern agent`: plain HTTP or TLS with the system trust store, private and loopback
    /// addresses allowed, each request within `timeout`.
    static func fetcher(timeout: Duration) throws -> Fetcher {
        var configuration = FetchConfiguration(policy: AddressPolicy(allowPrivate: true))
        configuration.totalTimeout = timeout
        configuration.connectTimeout = min(timeout, .seconds(10))
        configuration.maxBodyBytes = 1 << 20
        configuration.maxHeaderBytes = 64 * 1024
        configuration.concurrentFetches = 2
        configuration.userAgent = "postern-agent/1.0"
        // A client on the operator's machine, of a server named by its URL: the system's resolver, not a server's.
        return try Fetcher(configuration: configuration, resolver: SystemResolver(maxOutstanding: 4))
    }

    /// The salt text used when a challenge body has none.
    public let salt: String

    /// Signs up `username` at the server `url` (its base URL), then gets a capability token.
    /// - Throws: ``AgentClientError`` with the server's message on any refusal.
    public func signup(url: URL, username: String, events: AgentClientEvents? = nil) async throws -> AgentCredentials {
        let (body, session) = try await session(
            url: url, credential: ("username", username), expecting: 201, events: events)
        guard let apiKey = body["apiKey"] as? String, let inbox = body["inbox"] as? String else {
            throw AgentClientError(status: 201, message: "signup response lacks apiKey or inbox", hint: nil)
        }
        let (capability, expiresIn) = try await capability(url: url, sessionToken: session)
        return AgentCredentials(
            apiKey: apiKey, inbox: inbox, username: body["username"] as? String ?? username, sessionToken: session,
            capabilityToken: capability, capabilityExpiresIn: expiresIn)
    }

    /// Logs in with `apiKey` at the server `url`, then gets a capability token.
    /// - Throws: ``AgentClientError`` with the server's message on any refusal.
    public func login(url: URL, apiKey: String, events: AgentClientEvents? = nil) async throws -> AgentCredentials {
        let (body, session) = try await session(url: url, credential: ("apiKey", apiKey), expecting: 200, events: events)
        guard let inbox = body["inbox"] as? String else {
            throw AgentClientError(status: 200, message: "login response lacks inbox", hint: nil)
        }
        let (capability, expiresIn) = try await capability(url: url, sessionToken: session)
        return AgentCredentials(
            apiKey: nil, inbox: inbox, username: nil, sessionToken: session, capabilityToken: capability,
            capabilityExpiresIn: expiresIn)
    }

    /// `POST /api/v1/challenge`. Like the documented clients, reads `jti` and `difficulty` from the challenge
    /// JWT's payload (without verifying it), so it works against servers whose body carries nothing more.
    public func challenge(url: URL) async throws -> AgentChallenge {
        let (body, token) = try await post(url.appendingPathComponent("api/v1/challenge"), expecting: 200)
        guard let token, let claims = Self.unverifiedClaims(token), let id = claims["jti"] as? String,
            let difficulty = (claims["difficulty"] as? Int) ?? (body["difficulty"] as? Int)
        else {
            throw AgentClientError(status: 200, message: "challenge response lacks the token or its jti", hint: nil)
        }
        return AgentChallenge(token: token, id: id, difficulty: difficulty, salt: body["salt"] as? String ?? salt)
    }

    /// The payload of a compact JWS, decoded but not verified (the client has no key to verify it with).
    static func unverifiedClaims(_ token: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
    }

    /// Solves `challenge` on the solver's threads without blocking the caller's executor; `progress` hears of
    /// the search about once a second.
    public func solve(
        _ challenge: AgentChallenge, progress: (@Sendable (AgentPoWProgress) -> Void)? = nil
    ) async throws -> AgentPoWSolution {
        let solver = self.solver
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try solver.solve(
                            challenge: challenge.id, salt: challenge.salt, difficulty: challenge.difficulty,
                            progress: progress)
                    })
            }.start()
        }
    }

    /// `POST /api/v1/capability` with `sessionToken`.
    /// - Returns: the capability JWT and its lifetime in seconds.
    public func capability(url: URL, sessionToken: String) async throws -> (token: String, expiresIn: Int) {
        let (body, token) = try await post(
            url.appendingPathComponent("api/v1/capability"), bearer: sessionToken, expecting: 200)
        guard let token else {
            throw AgentClientError(status: 200, message: "capability response lacks the token", hint: nil)
        }
        if let expiresIn = body["expires_in"] as? Int { return (token, expiresIn) }
        let claims = Self.unverifiedClaims(token)
        let lifetime = ((claims?["exp"] as? Int) ?? 0) - ((claims?["iat"] as? Int) ?? 0)
        return (token, max(0, lifetime))
    }

    private func session(
        url: URL, credential: (String, String), expecting status: Int, events: AgentClientEvents?
    ) async throws -> (body: [String: Any], token: String) {
        let challenge = try await challenge(url: url)
        events?.challenge(challenge)
        let solution = try await solve(challenge, progress: events?.progress)
        let payload = ["powHex": solution.powHex, "nonce": String(solution.nonce), credential.0: credential.1]
        let (body, token) = try await post(
            url.appendingPathComponent("api/v1/session"), bearer: challenge.token,
            json: try JSONSerialization.data(withJSONObject: payload), expecting: status)
        guard let token else {
            throw AgentClientError(status: status, message: "session response lacks the token", hint: nil)
        }
        return (body, token)
    }

    /// POSTs and returns the JSON object body and the bearer token of the response `Authorization` header.
    private func post(
        _ url: URL, bearer: String? = nil, json: Data? = nil, expecting status: Int
    ) async throws -> (body: [String: Any], token: String?) {
        var headers = [("Accept", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer " + bearer)) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        let response: FetchResponse
        do {
            response = try await http.post(url.absoluteString, headers: headers, body: json.map { Array($0) } ?? [])
        } catch {
            throw AgentClientError(status: 0, message: "request to \(url.absoluteString) failed: \(error)", hint: nil)
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        guard response.status == status else {
            let error = object["error"] as? [String: Any]
            throw AgentClientError(
                status: response.status, message: error?["message"] as? String ?? "unexpected response",
                hint: error?["hint"] as? String)
        }
        var token: String? = nil
        if let header = response.head["Authorization"] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                token = parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return (object, token)
    }
}
