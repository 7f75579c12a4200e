import AuthCrypto
import Base64Coding
import HTTP1
import JSON
import MIME
import MailStore
import ServerKit

/// Mailosaur's API (the paths, queries and shapes its SDKs call: `mailosaur` 8.1.1 for Python) over the one mail
/// store, mounted under ``MailosaurConfiguration/basePath``, so that a suite written for Mailosaur runs by changing its
/// base URL (issue 85 item 2). Servers are addresses of the store (``MailosaurServer``); each message carries the codes
/// and links found in it when it was stored.
///
/// Who may look: the operator's token (`POSTERN_OPERATOR_TOKEN`) sees every server; a Pro user's API token sees that
/// user's SMTP sandbox only. Either comes as Mailosaur's SDKs send their API key: the user name of HTTP Basic (the
/// password empty), or as Basic's password, or as `Authorization: Bearer <token>`. Nothing is open without one.
///
/// Errors are Mailosaur's statuses with a JSON body (``MailosaurRefusal``): 400 naming the invalid field, 401, 404
/// for a server, message or attachment the credential does not see. A storage failure is 503, anything unforeseen a
/// bare 500, logged.
public final class MailosaurAPI: Sendable {
    let configuration: MailosaurConfiguration
    let mail: MailStore
    let sandboxes: any MailosaurSandboxes
    /// Where the API is reached from outside (`POSTERN_PUBLIC_URL`), for an attachment's `url`.
    let publicURL: String
    let middleware: SurfaceMiddleware<Int>
    /// The SHA-256 of the operator's token; nil when none is configured.
    let operatorDigest: [UInt8]?

    /// - Parameters:
    ///   - configuration: the base path, the operator's token, the catch-all's address and the limits.
    ///   - mail: the one mail store.
    ///   - sandboxes: Pro users' sandboxes, found from their API tokens.
    ///   - publicURL: the server's public URL, without a trailing `/`.
    ///   - onUnexpectedError: where an unforeseen error is reported, with the request id.
    public init(
        configuration: MailosaurConfiguration, mail: MailStore, sandboxes: any MailosaurSandboxes, publicURL: String,
        onUnexpectedError: (@Sendable (any Error, String) -> Void)?
    ) {
        self.configuration = configuration
        self.mail = mail
        self.sandboxes = sandboxes
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.operatorDigest = configuration.operatorToken.flatMap { $0.isEmpty ? nil : SHA256.hash($0.utf8) }
        // No rate limits (the operator's and Pro users' keys are the server's own); every answer is `no-store` already
        // (its JSON, the received bytes, the 204s).
        self.middleware = SurfaceMiddleware<Int>(
            limiter: nil, tooManyRequests: { _, _ in MailosaurRefusal.failed(.tooManyRequests).response },
            failure: MailosaurRefusal.answer, onUnexpectedError: onUnexpectedError)
    }

    /// Adds every route of the API under the base path; nothing when the path is off.
    public func register(on router: inout ContextRouter) {
        guard let base = configuration.basePath else { return }
        let api = base + "/api"
        let body = configuration.maximumBodyBytes
        router.add(.GET, api + "/servers", authorized(listServers))
        router.add(.GET, api + "/servers/{id}", authorized(getServer))
        router.add(.GET, api + "/messages", authorized(listMessages))
        router.add(.DELETE, api + "/messages", authorized(deleteAllMessages))
        router.add(.POST, api + "/messages/search", bodyLimit: body, authorized(searchMessages))
        router.add(.POST, api + "/messages/await", bodyLimit: body, authorized(awaitMessage))
        router.add(.GET, api + "/messages/{id}", authorized(getMessage))
        router.add(.DELETE, api + "/messages/{id}", authorized(deleteMessage))
        router.add(.GET, api + "/files/email/{id}", authorized(getRaw))
        router.add(.GET, api + "/files/attachments/{id}", authorized(getAttachment))
    }

    /// A route's handler: the credential checked, then `handler` with what it sees, under the surface's middleware.
    private func authorized(_ handler: @escaping @Sendable (MailosaurCall) async throws -> HTTPResponse)
        -> ContextRouteHandler
    {
        .deferred { [self] request, context, parameters in
            await middleware.run(0, context) {
                guard let viewer = try await viewer(of: request) else { throw MailosaurRefusal.unauthorized }
                return try await handler(MailosaurCall(request: request, parameters: parameters, viewer: viewer))
            }
        }
    }

    /// Who the request's credential is: the operator for the operator's token, a Pro user's sandbox for their API
    /// token; nil for no credential or any other. Of Basic's user name and password, the first that is a key counts.
    func viewer(of request: HTTPRequest) async throws -> MailosaurViewer? {
        for token in Self.credentials(request) {
            if let operatorDigest, constantTimeEquals(SHA256.hash(token.utf8), operatorDigest) { return .operator }
            if token.utf8.count <= 512, let address = try await sandboxes.sandboxAddress(apiToken: token) {
                return .sandbox(address)
            }
        }
        return nil
    }

    /// The keys a request may carry: `Authorization: Bearer`'s token, or Basic's user name (where Mailosaur's SDKs put
    /// their API key) and then its password, each when not empty.
    static func credentials(_ request: HTTPRequest) -> [String] {
        if let bearer = request.bearerToken { return [bearer] }
        guard let header = request.headers["Authorization"] else { return [] }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let pair = Base64.decode(String(parts[1]).trimmingSpaces())
        else { return [] }
        let colon = pair.firstIndex(of: UInt8(ascii: ":")) ?? pair.endIndex
        let user = String(decoding: pair[..<colon], as: UTF8.self)
        let password = colon < pair.endIndex ? String(decoding: pair[(colon + 1)...], as: UTF8.self) : ""
        return [user, password].filter { !$0.isEmpty }
    }

    /// The servers `viewer` sees: the operator's the catch-all first, then every address that holds mail; a Pro user's
    /// their sandbox.
    func servers(of viewer: MailosaurViewer) async throws -> [MailosaurServer] {
        switch viewer {
        case .sandbox(let address): return [MailosaurServer(address: address)]
        case .operator:
            let catchAll = catchAllServer
            let others = try await mail.addresses().map { MailosaurServer(address: $0) }
            return [catchAll] + others.filter { $0.address != catchAll.address }
        }
    }

    /// The server `id` among those `viewer` sees; the catch-all's and a sandbox's found without reading the store.
    /// - Throws: ``MailosaurRefusal/notFound`` when there is none.
    func server(_ id: String, of viewer: MailosaurViewer) async throws -> MailosaurServer {
        guard MailosaurServer.isWellFormed(id) else { throw MailosaurRefusal.notFound }
        if viewer == .operator, id == catchAllServer.id { return catchAllServer }
        guard let server = try await servers(of: viewer).first(where: { $0.id == id }) else {
            throw MailosaurRefusal.notFound
        }
        return server
    }

    /// The SMTP catch-all's server.
    var catchAllServer: MailosaurServer { MailosaurServer(address: configuration.catchAllAddress, name: "Catch-all") }

    /// A JSON answer.
    static func json(_ value: JSONValue) -> HTTPResponse { HTTPResponse.noStoreJSON(.ok, value) }

    /// Mailosaur's answer to a delete and to a wait that found nothing: 204, no body.
    static func noContent() -> HTTPResponse {
        HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])
    }
}

/// Who a request's credential is.
enum MailosaurViewer: Sendable, Equatable {
    /// The operator: every server.
    case `operator`
    /// A Pro user: their SMTP sandbox, by its store address.
    case sandbox(String)

    /// The mail this viewer sees.
    var scope: MailScope {
        switch self {
        case .operator: return .everyAddress
        case .sandbox(let address): return .address(address)
        }
    }
}

/// One request to the API with what its credential sees.
struct MailosaurCall: Sendable {
    let request: HTTPRequest
    let parameters: RouteParameters
    let viewer: MailosaurViewer

    /// The path parameter `name` (percent-decoded); empty when absent.
    func parameter(_ name: String) -> String { parameters[name] ?? "" }
}
