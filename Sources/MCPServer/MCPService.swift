import AuthCrypto
import ClientAddress
import Directory
import HTTP1
import JMAP
import JSON
import MailStore
import ServerKit

/// MCP (Model Context Protocol) over Streamable HTTP at `/mcp`: JSON-RPC 2.0, one message per POST, answered as
/// `application/json` (the transport's JSON response mode; no server-initiated stream, so `GET /mcp` is 405);
/// `Mcp-Session-Id` sessions bound to the credential that opened them (``MCPSessions``, valid on every instance); the mail tools of ``MCPTools``, which read and
/// send through ``JMAPService`` as the principal the authenticator finds.
public struct MCPService: Sendable {
    let configuration: MCPConfiguration
    /// An owner's access token or an inbox API key: the one bearer chain of every resource server.
    let bearers: BearerAuthenticator
    /// The OAuth half: owners' access tokens for `<public URL>/mcp`; nil when only API keys are served.
    let owners: MCPOwnerAccess?
    let sessions: MCPSessions
    let tools: MCPTools
    let onUnexpectedError: UnexpectedErrorReporter
    /// The per-client bucket (nil when rate limits are off) and the JSON-RPC error shape.
    let middleware: SurfaceMiddleware<RateClass>

    /// What a request draws on: every request to `/mcp` alike.
    enum RateClass: Hashable, Sendable {
        case request
    }

    /// Protocol versions this server speaks, newest first: what the current `mcp` SDKs negotiate and the older
    /// ones hosts still open with.
    public static let protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

    /// - Parameters:
    ///   - configuration: where MCP is served and its limits.
    ///   - authenticator: who an inbox API key acts as.
    ///   - owners: the OAuth half (an access token is a bearer whose header declares `typ: at+jwt`,
    ///     ``BearerAuthenticator``); nil to serve API keys only.
    ///   - jmap: the JMAP service the tools read and send through.
    ///   - mail: the mail store whose change stream `wait_for_message` parks on, as Mail.td's `/messages/wait` does.
    ///   - clock: Unix seconds, for sessions.
    ///   - sessionSecret: random bytes every instance shares (``MCPSessions/secretName`` in `server_secrets`), the
    ///     key that session ids are MACed with besides the credential's digest.
    ///   - onUnexpectedError: called with each error answered as a JSON-RPC internal error.
    ///   - monotonicClock: the rate limit's clock.
    public init(
        configuration: MCPConfiguration, authenticator: any PrincipalAuthenticator, owners: MCPOwnerAccess? = nil,
        jmap: JMAPService, mail: MailStore, clock: @escaping @Sendable () -> Int64, sessionSecret: [UInt8],
        onUnexpectedError: @escaping UnexpectedErrorReporter = { _, _ in }, monotonicClock: MonotonicClock = .system
    ) {
        let rate = TokenBucketRate(requests: configuration.requestsPerMinute, perSeconds: 60)
            .share(among: configuration.instances)
        self.middleware = SurfaceMiddleware(
            limiter: configuration.rateLimitsEnabled
                ? RateLimitTable(capacity: configuration.rateLimitTableCapacity, clock: monotonicClock) { _ in rate }
                : nil,
            tooManyRequests: { _, decision in
                HTTPResponse.noStoreJSON(
                    .tooManyRequests,
                    JSONRPCError(
                        .invalidRequest,
                        "Too many requests from this address; retry after \(decision.retryAfterSeconds) s."
                    ).response)
            },
            failure: { error in
                let failure = ServiceFailure(error)
                return failure.answer(
                    HTTPResponse.noStoreJSON(
                        failure.status,
                        JSONRPCError(.internalError, "The server could not check the credential; try again.").response))
            },
            onUnexpectedError: onUnexpectedError)
        self.configuration = configuration
        self.bearers = BearerAuthenticator(accessTokens: owners?.verifier, principals: authenticator)
        self.owners = owners
        self.sessions = MCPSessions(
            versions: Self.protocolVersions, capacity: configuration.maxClosedSessions,
            lifetimeSeconds: configuration.sessionLifetimeSeconds, secret: sessionSecret, clock: clock)
        self.tools = MCPTools(configuration: configuration, jmap: jmap, mail: mail, owners: owners?.principals)
        self.onUnexpectedError = onUnexpectedError
    }

    /// Adds `POST`, `GET`, `DELETE /mcp` and the RFC 9728 metadata.
    public func register(into router: inout ContextRouter) {
        router.add(
            .POST, "/mcp", bodyLimit: configuration.maxRequestBytes,
            .deferred { request, context, _ in await post(request, context) })
        router.add(
            .GET, "/mcp",
            .deferred { request, context, _ in
                await authenticated(request, context) { _, _ in
                    var response = HTTPResponse.noStoreJSON(
                        .methodNotAllowed,
                        JSONRPCError(.invalidRequest, "This server offers no server-initiated stream; POST to /mcp.")
                            .response)
                    response.headers.add("Allow", "POST, DELETE")
                    return response
                }
            })
        router.add(
            .DELETE, "/mcp",
            .deferred { request, context, _ in
                await authenticated(request, context) { _, credential in
                    guard let id = request.headers["Mcp-Session-Id"] else {
                        return .noStoreJSON(.badRequest, JSONRPCError(.invalidRequest, "Send the Mcp-Session-Id to close.").response)
                    }
                    guard sessions.close(id, credential: credential) else { return Self.sessionNotFound(.null) }
                    return HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])
                }
            })
        let metadata = HTTPResponse.noStoreJSON(.ok, resourceMetadata)
        router.add(.GET, "/.well-known/oauth-protected-resource/mcp", .immediate { _, _, _ in metadata })
    }

    /// RFC 9728 protected-resource metadata (`api-docs/oauth-mcp-contract.md` 1.12), naming the authorization server
    /// when OAuth is served; without it the only bearer is an inbox API key.
    var resourceMetadata: JSONValue {
        var members: [(String, JSONValue)] = [("resource", .string(configuration.resource))]
        if let owners { members.append(("authorization_servers", [.string(owners.issuer)])) }
        members += [
            ("scopes_supported", ["mail.read", "mail.send"]), ("bearer_methods_supported", ["header"]),
            ("resource_name", "Postern mail (MCP)"),
        ]
        return .object(members)
    }

    private func post(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        await authenticated(request, context) { connection, credential in
            let message: JSONRPCMessage
            do throws(JSONRPCError) {
                message = try JSONRPCMessage.parse(request.body, maximumBytes: configuration.maxRequestBytes)
            } catch {
                return .noStoreJSON(.badRequest, error.response)
            }
            // The stateless era's probe (2026-07-28, `server/discover`) and any version this server lacks: -32022
            // with the versions it has, on which the SDKs fall back to the initialize handshake.
            let header = request.headers["MCP-Protocol-Version"]
            let requestID: JSONValue = if case .request(let id, _, _) = message { id } else { .null }
            if case .request(_, "server/discover", _) = message {
                return .noStoreJSON(.badRequest, Self.unsupportedVersion(id: requestID, requested: header))
            }
            if let header, !Self.protocolVersions.contains(header) {
                return .noStoreJSON(.badRequest, Self.unsupportedVersion(id: requestID, requested: header))
            }
            // Notifications (`notifications/initialized`, cancellations) and responses carry nothing a later call
            // depends on: 202, as the transport says.
            guard case .request(let id, let method, let params) = message else {
                return HTTPResponse(status: .accepted, headers: ["Cache-Control": "no-store"])
            }
            if method == "initialize" {
                return initialize(id: id, params: params, credential: credential)
            }
            guard let sessionID = request.headers["Mcp-Session-Id"] else {
                return .noStoreJSON(
                    .badRequest,
                    JSONRPCError(.invalidRequest, "Send the Mcp-Session-Id that initialize answered with.", id: id)
                        .response)
            }
            guard sessions.use(sessionID, credential: credential) != nil else { return Self.sessionNotFound(id) }
            let call = MCPTools.Request(connection: connection, client: context.clientKey, requestID: context.requestID)
            do {
                return .noStoreJSON(.ok, JSONRPCMessage.result(id: id, try await answer(method, params, call)))
            } catch let refusal as AuthenticationRefusal {
                return refused(refusal, id: id)
            } catch var error as JSONRPCError {
                error.id = id
                return .noStoreJSON(.ok, error.response)
            } catch {
                if ServiceFailure(error).shouldLog { onUnexpectedError(error, context.requestID) }
                return .noStoreJSON(
                    .ok, JSONRPCError(.internalError, "The server could not complete the call; try again.", id: id).response)
            }
        }
    }

    private func answer(_ method: String, _ params: [(String, JSONValue)], _ call: MCPTools.Request) async throws
        -> JSONValue
    {
        switch method {
        case "ping": return .object([])
        case "tools/list": return .object([("tools", .array(tools.list.map(\.json)))])
        case "tools/call":
            let given = JSONValue.object(params)
            guard let name = given["name"]?.stringValue else {
                throw JSONRPCError(.invalidParams, "tools/call needs the tool's `name`.")
            }
            return try await tools.call(name, arguments: given["arguments"], call)
        default:
            throw JSONRPCError(.methodNotFound, "Method \(method) is not offered here; this server has tools only.")
        }
    }

    private func initialize(id: JSONValue, params: [(String, JSONValue)], credential: [UInt8]) -> HTTPResponse {
        let asked = JSONValue.object(params)["protocolVersion"]?.stringValue
        guard let asked else {
            return .noStoreJSON(
                .ok, JSONRPCError(.invalidParams, "initialize needs `protocolVersion`.", id: id).response)
        }
        let version = Self.protocolVersions.contains(asked) ? asked : Self.protocolVersions[0]
        let session = sessions.open(credential: credential, protocolVersion: version)
        var capabilities: [(String, JSONValue)] = [("tools", .object([("listChanged", false)]))]
        if !configuration.extensions.isEmpty {
            capabilities.append(("extensions", .object(configuration.extensions.map { ($0, .object([])) })))
        }
        let result: JSONValue = .object([
            ("protocolVersion", .string(version)),
            ("capabilities", .object(capabilities)),
            (
                "serverInfo",
                .object([
                    ("name", "postern"), ("title", "Postern mail"), ("version", .string(configuration.serverVersion)),
                ])
            ),
            ("instructions", .string(MCPHelp.instructions)),
        ])
        var response = HTTPResponse.noStoreJSON(.ok, JSONRPCMessage.result(id: id, result))
        response.headers.add("Mcp-Session-Id", session)
        return response
    }

    /// Runs `body` with the connection and credential digest of the request, or answers 429 past the client's rate,
    /// 403 for a browser page of a foreign origin (DNS rebinding), or 401 with the `WWW-Authenticate` challenge that
    /// points at the resource metadata. A credential whose header declares `typ: at+jwt` is an OAuth access token
    /// (when OAuth is served), anything else an inbox API key; never both (``BearerAuthenticator``). An
    /// OAuth connection's sessions are bound to its owner and client, so that they outlive the access token's
    /// refreshes and a scope step-up (which is a new grant).
    private func authenticated(
        _ request: HTTPRequest, _ context: RequestContext, _ body: (MCPConnection, [UInt8]) async -> HTTPResponse
    ) async -> HTTPResponse {
        await middleware.run(.request, context) {
            guard configuration.allows(origin: request.headers["Origin"]) else {
                return .noStoreJSON(
                    .forbidden,
                    JSONRPCError(
                        .invalidRequest,
                        "Origin \(request.headers["Origin"] ?? "") may not use this server; an operator can allow it "
                            + "with POSTERN_MCP_ALLOWED_ORIGINS."
                    ).response)
            }
            guard let token = MCPCredential.token(in: request.headers) else {
                let how = owners == nil ? "" : " or sign in with OAuth (see the resource metadata)"
                return unauthorized(
                    error: nil, "Send the inbox API key as Authorization: Bearer <key> (or X-API-Key)\(how).")
            }
            let credentials = Credentials(
                bearerToken: token, headers: Array(request.headers), client: context.clientAddress)
            let identity: BearerAuthenticator.Identity?
            do {
                identity = try await bearers.authenticate(credentials, resources: [.mcp])
            } catch let refusal as AuthenticationRefusal {
                return unauthorized(error: "invalid_token", refusal.description)
            }
            switch identity {
            case .owner(let grant)?:
                return await body(.owner(grant), SHA256.hash("oauth:" + grant.ownerID + " " + grant.clientID))
            case .principal(let principal)?:
                return await body(.inbox(principal), SHA256.hash(token))
            case nil:
                return unauthorized(error: "invalid_token", "The API key is unknown or revoked.")
            }
        }
    }

    private func unauthorized(error: String?, _ message: String) -> HTTPResponse {
        var response = HTTPResponse.noStoreJSON(.unauthorized, JSONRPCError(.invalidRequest, message).response)
        var challenge = "Bearer resource_metadata=\"\(configuration.resourceMetadataURL)\""
        if let error { challenge += ", error=\"\(error)\"" }
        response.headers.add("WWW-Authenticate", challenge)
        return response
    }

    /// A call the grant's scopes do not cover: HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
    /// scope=…, resource_metadata=…` (docs/decisions/0022), on which MCP hosts authorize again for
    /// more, and a JSON-RPC error that says the same.
    private func refused(_ refusal: AuthenticationRefusal, id: JSONValue) -> HTTPResponse {
        var response = HTTPResponse.noStoreJSON(
            HTTPStatus(code: refusal.status), JSONRPCError(.invalidRequest, refusal.description, id: id).response)
        if let challenge = refusal.challenge(extra: "resource_metadata=\"\(configuration.resourceMetadataURL)\"") {
            response.headers.add("WWW-Authenticate", challenge)
        }
        return response
    }

    /// The -32022 error naming the versions this server speaks.
    static func unsupportedVersion(id: JSONValue, requested: String?) -> JSONValue {
        .object([
            ("jsonrpc", "2.0"), ("id", id),
            (
                "error",
                .object([
                    ("code", -32022),
                    (
                        "message",
                        .string(
                            "Unsupported protocol version; initialize with one of "
                                + "\(protocolVersions.joined(separator: ", ")).")
                    ),
                    (
                        "data",
                        .object([
                            ("supported", .array(protocolVersions.map(JSONValue.string))),
                            ("requested", requested.map(JSONValue.string) ?? .null),
                        ])
                    ),
                ])
            ),
        ])
    }

    private static func sessionNotFound(_ id: JSONValue) -> HTTPResponse {
        .noStoreJSON(
            .notFound,
            JSONRPCError(
                .sessionNotFound, "Session not found: it expired, was closed, or belongs to another credential; "
                    + "initialize again.", id: id
            ).response)
    }
}
