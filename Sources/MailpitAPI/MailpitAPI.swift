import AuthCrypto
import Base64Coding
import Fetch
import HTTP1
import JSON
import MIME
import MailStore
import ServerKit

/// Mailpit's API v1 (`swagger.json` of Mailpit 408b30d) over the one mail store, mounted under
/// ``MailpitConfiguration/basePath`` as Mailpit's own `--webroot` mounts it, so that a suite written for Mailpit runs
/// by changing its base URL (issue 71).
///
/// Who may look: the operator's token (`POSTERN_OPERATOR_TOKEN`) sees every address's mail; a Pro user's API token
/// sees that user's SMTP sandbox only. Either comes as `Authorization: Bearer <token>` or as HTTP Basic's password (any
/// user name: Mailpit's clients send Basic). Nothing is open without one, on any address. A refusal is Mailpit's: 401,
/// `WWW-Authenticate: Basic realm="Login"`, `Unauthorized.`
///
/// Errors are Mailpit's: `text/plain` bodies with 400 (a request it cannot do), 404 (`404 page not found`: no such
/// message); the send route's 400 is `{"Error": ...}`. A storage failure is 503, anything unforeseen a bare 500,
/// logged.
public final class MailpitAPI: Sendable {
    let configuration: MailpitConfiguration
    let mail: MailStore
    let sandboxes: any MailpitSandboxes
    let receiving: any MailpitReceiving
    /// The outbound fetcher link checks go through, under its address policy.
    let links: any URLFetching
    /// The SMTP failure injection `/api/v1/chaos` reads and sets; nil when it is off (`POSTERN_SMTP_CHAOS`).
    let chaos: (any MailpitChaosRules)?
    /// The outbound queue `release` sends through; nil when outbound delivery is off.
    let relay: (any MailpitRelay)?
    let clock: @Sendable () -> Int64
    let startedAt: Int64
    let middleware: SurfaceMiddleware<Int>
    /// The SHA-256 of the operator's token; nil when none is configured.
    let operatorDigest: [UInt8]?

    /// - Parameters:
    ///   - configuration: the base path, the operator's token and the limits.
    ///   - mail: the one mail store.
    ///   - sandboxes: Pro users' sandboxes, found from their API tokens.
    ///   - receiving: local delivery, for the operator's `send`.
    ///   - links: the outbound fetcher (its address policy decides what a link check may reach).
    ///   - chaos: the SMTP failure injection, for `/api/v1/chaos`; nil when it is off.
    ///   - relay: the outbound queue, for `release`; nil when outbound delivery is off.
    ///   - clock: Unix seconds now (the uptime of `info`).
    ///   - onUnexpectedError: where an unforeseen error is reported, with the request id.
    public init(
        configuration: MailpitConfiguration, mail: MailStore, sandboxes: any MailpitSandboxes,
        receiving: any MailpitReceiving, links: any URLFetching, chaos: (any MailpitChaosRules)? = nil,
        relay: (any MailpitRelay)? = nil, clock: @escaping @Sendable () -> Int64,
        onUnexpectedError: (@Sendable (any Error, String) -> Void)?
    ) {
        self.configuration = configuration
        self.mail = mail
        self.sandboxes = sandboxes
        self.receiving = receiving
        self.links = links
        self.chaos = chaos
        self.relay = relay
        self.clock = clock
        self.startedAt = clock()
        self.operatorDigest = configuration.operatorToken.flatMap { $0.isEmpty ? nil : SHA256.hash($0) }
        self.middleware = SurfaceMiddleware<Int>(
            limiter: nil, tooManyRequests: { _, _ in MailpitAPI.text(.tooManyRequests, "Too many requests") },
            failure: { error in
                if let refusal = error as? MailpitRefusal { return (refusal.response, false) }
                let failure = ServiceFailure(error)
                return (
                    MailpitAPI.text(failure.status, failure == .unavailable ? "Service unavailable" : "Internal error"),
                    failure.shouldLog
                )
            },
            finish: { response, _ in
                var response = response
                response.headers.replaceOrAdd("Referrer-Policy", "no-referrer")
                if !response.headers.contains("Cache-Control") { response.headers.add("Cache-Control", "no-store") }
                return response
            },
            onUnexpectedError: onUnexpectedError)
    }

    /// Adds every route of the API under the base path; nothing when the path is off.
    public func register(on router: inout ContextRouter) {
        guard let base = configuration.basePath else { return }
        let api = base + "/api/v1"
        let body = configuration.maximumBodyBytes
        add(&router, .GET, api + "/messages", listMessages)
        add(&router, .PUT, api + "/messages", bodyLimit: body, setReadStatus)
        add(&router, .DELETE, api + "/messages", bodyLimit: body, deleteMessages)
        add(&router, .GET, api + "/search", search)
        add(&router, .DELETE, api + "/search", deleteSearch)
        add(&router, .POST, api + "/send", bodyLimit: configuration.maximumSendBytes, send)
        add(&router, .GET, api + "/tags", listTags)
        add(&router, .PUT, api + "/tags", bodyLimit: body, setTags)
        add(&router, .PUT, api + "/tags/{tag}", bodyLimit: body, renameTag)
        add(&router, .DELETE, api + "/tags/{tag}", deleteTag)
        let message = api + "/message/{id}"
        add(&router, .GET, message, getMessage)
        add(&router, .GET, message + "/headers", getHeaders)
        add(&router, .GET, message + "/raw", getRaw)
        add(&router, .GET, message + "/part/{part}", getPart)
        add(&router, .GET, message + "/part/{part}/thumb", getThumbnail)
        add(&router, .GET, message + "/html-check", featureOff)
        add(&router, .GET, message + "/sa-check", featureOff)
        add(&router, .GET, message + "/link-check", linkCheck)
        add(&router, .POST, message + "/release", bodyLimit: body, release)
        add(&router, .GET, api + "/info", info)
        add(&router, .GET, api + "/webui", webUI)
        add(&router, .GET, api + "/chaos", getChaos)
        add(&router, .PUT, api + "/chaos", bodyLimit: body, setChaos)
        add(&router, .GET, base + "/view/{file}", view)
        registerEvents(on: &router, base: base)
        registerPage(on: &router, base: base)
    }

    /// One route: the credential checked, then `handler` with the scope it sees, under the surface's middleware.
    private func add(
        _ router: inout ContextRouter, _ method: HTTPMethod, _ path: String, bodyLimit: Int? = nil,
        _ handler: @escaping @Sendable (MailpitCall) async throws -> HTTPResponse
    ) {
        router.add(
            method, path, bodyLimit: bodyLimit,
            .deferred { [self] request, context, parameters in
                await middleware.run(0, context) {
                    guard let viewer = try await viewer(of: request) else { return Self.unauthorized() }
                    return try await handler(MailpitCall(request: request, parameters: parameters, viewer: viewer))
                }
            })
    }

    /// Who the request's credential is: the operator for the operator's token, a Pro user's sandbox for their API
    /// token; nil for no credential or any other.
    func viewer(of request: HTTPRequest) async throws -> MailpitViewer? {
        guard let token = Self.credential(request) else { return nil }
        if let operatorDigest, constantTimeEquals(SHA256.hash(token), operatorDigest) { return .operator }
        guard token.utf8.count <= 512, let sandbox = try await sandboxes.sandbox(apiToken: token) else { return nil }
        return .sandbox(sandbox)
    }

    /// The token of `Authorization: Bearer`, or the password of `Authorization: Basic`; nil for neither.
    static func credential(_ request: HTTPRequest) -> String? {
        if let bearer = request.bearerToken { return bearer }
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Base64.decode(String(parts[1]).trimmingSpaces()),
            let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        let password = String(decoding: decoded[(colon + 1)...], as: UTF8.self)
        return password.isEmpty ? nil : password
    }

    /// Mailpit's refusal of a missing or wrong credential.
    static func unauthorized() -> HTTPResponse {
        var response = text(.unauthorized, "Unauthorized.\n")
        response.headers.replaceOrAdd("WWW-Authenticate", #"Basic realm="Login""#)
        return response
    }

    /// A `text/plain` answer, Mailpit's form for `ok` and every error.
    static func text(_ status: HTTPStatus, _ body: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(body.utf8))
    }

    /// Mailpit's `ok`.
    static func ok() -> HTTPResponse { text(.ok, "ok") }

    /// A JSON answer.
    static func json(_ value: JSONValue) -> HTTPResponse { HTTPResponse.noStoreJSON(.ok, value) }
}

/// Who a request's credential is.
enum MailpitViewer: Sendable, Equatable {
    /// The operator: every address's mail.
    case `operator`
    /// A Pro user: their SMTP sandbox's mail.
    case sandbox(MailpitSandbox)

    /// The mail this viewer sees.
    var scope: MailScope {
        switch self {
        case .operator: return .everyAddress
        case .sandbox(let sandbox): return .address(sandbox.address)
        }
    }

    /// The failure-injection rules this viewer sets: the server's for the operator, their sandbox's for a Pro user.
    var chaosScope: MailpitChaosScope {
        switch self {
        case .operator: return .server
        case .sandbox(let sandbox): return .user(sandbox.owner)
        }
    }
}

/// One request to the API with the mail its credential sees.
struct MailpitCall: Sendable {
    let request: HTTPRequest
    let parameters: RouteParameters
    let viewer: MailpitViewer

    /// The mail the viewer sees.
    var scope: MailScope { viewer.scope }

    /// The path parameter `name` (percent-decoded); empty when absent.
    func parameter(_ name: String) -> String { parameters[name] ?? "" }
}

/// A refusal in Mailpit's shape: a status and a text body (or the send route's JSON `{"Error": ...}`).
struct MailpitRefusal: Error, Sendable {
    let response: HTTPResponse

    /// 400 with `message` as the text body.
    static func badRequest(_ message: String) -> MailpitRefusal {
        MailpitRefusal(response: MailpitAPI.text(.badRequest, message))
    }

    /// Mailpit's 404 for a message or part that is not there.
    static let notFound = MailpitRefusal(response: MailpitAPI.text(.notFound, "404 page not found"))

    /// The send route's 400: `{"Error": message}`.
    static func badSend(_ message: String) -> MailpitRefusal {
        MailpitRefusal(response: HTTPResponse.noStoreJSON(.badRequest, .object([("Error", .string(message))])))
    }
}
