import HTTP1
import ServerKit

/// Where MCP is served and its limits, in one place.
///
/// ``init(config:)`` reads the operator's keys from a reader scoped to `POSTERN_MCP` and refuses a bad value naming
/// its key; the composition root sets ``baseURL``, ``rateLimitsEnabled`` and ``instances``, which every surface shares.
///
/// ## Configuration keys
/// - `POSTERN_MCP_JMAP_REQUEST` (on or off, default on): ``jmapRequestEnabled``.
/// - `POSTERN_MCP_ALLOWED_ORIGINS` (comma-separated `scheme://host[:port]`, default none): ``allowedOrigins``.
public struct MCPConfiguration: Sendable {
    /// The public base URL, with a trailing slash (`http://localhost:8080/`).
    public var baseURL: String
    /// The release `initialize` names in `serverInfo.version`: the one version string the command line, `/metrics`
    /// and backups name too (set by the composition root).
    public var serverVersion = ""

    /// The largest POST body (default 8 MiB: base64 attachments are a third larger than the files).
    public var maxRequestBytes = 8 * 1024 * 1024
    /// The longest string argument in UTF-8 bytes, a message body included (default 1 MiB).
    public var maxStringBytes = 1024 * 1024
    /// The most bytes all of one call's attachments may hold once decoded (default 5 MiB).
    public var maxAttachmentBytes = 5 * 1024 * 1024
    /// The most attachments, and the most addresses in each of `to`, `cc` and `bcc` (default 50).
    public var maxListCount = 50
    /// The most closed session ids an instance remembers until they would have expired (default 10 000).
    public var maxClosedSessions = 10_000
    /// Seconds a session lives from its `initialize` (default 86 400); past it the client initializes again.
    public var sessionLifetimeSeconds: Int64 = 86_400
    /// The longest `wait_for_message` wait in seconds (default 30, as Mail.td's `/messages/wait`).
    public var maxWaitSeconds = 30
    /// Per client address (IPv6 per /64), when `rateLimitsEnabled`: requests to `/mcp` per minute (default 600, as
    /// JMAP's). Past it: 429 with `Retry-After` and a JSON-RPC error.
    public var rateLimitsEnabled = true
    public var requestsPerMinute = 600
    /// How many instances enforce the limit together (`POSTERN_INSTANCES`): this one takes its share. Default 1.
    public var instances = 1
    public var rateLimitTableCapacity = 65_536
    /// Whether the `jmap_request` tool is offered (default true; `POSTERN_MCP_JMAP_REQUEST=off` hides it).
    public var jmapRequestEnabled = true
    /// Origins besides the public URL's whose browser pages may call `/mcp` (`POSTERN_MCP_ALLOWED_ORIGINS`). A
    /// request whose `Origin` is neither is refused with 403, as the Streamable HTTP transport requires against DNS
    /// rebinding; a request without `Origin` (every non-browser host) is not affected.
    public var allowedOrigins: [WebOrigin] = []
    /// The MCP extensions `initialize` advertises in `capabilities.extensions` (each with an empty settings object),
    /// set by the composition root: `io.modelcontextprotocol/oauth-client-credentials` while the authorization server
    /// serves the client credentials grant. Default none.
    public var extensions: [String] = []

    /// The identifier of MCP's OAuth client credentials extension (SEP-1046, the `ext-auth` repository).
    public static let clientCredentialsExtension = "io.modelcontextprotocol/oauth-client-credentials"

    /// - Parameter baseURL: the public base URL; a trailing slash is added when missing.
    public init(baseURL: String) {
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
    }

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names: this scopes it);
    /// ``baseURL`` is `/` until the composition root knows the public URL.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse.
    public init(config: ConfigurationReader) throws {
        self.init(baseURL: "")
        let config = config.scoped(to: "POSTERN_MCP")
        if let on = try config.flag("JMAP_REQUEST") { jmapRequestEnabled = on }
        if let origins = config.list("ALLOWED_ORIGINS") {
            allowedOrigins = try origins.map { text in
                guard let origin = WebOrigin(text) else {
                    throw config.error("ALLOWED_ORIGINS", "must be origins like https://app.example (got \"\(text)\")")
                }
                return origin
            }
        }
    }

    /// The protected resource MCP clients name: `<base>/mcp`.
    public var resource: String { baseURL + "mcp" }
    /// Whether a request with this `Origin` header (nil: none) may use `/mcp`.
    public func allows(origin: String?) -> Bool {
        guard let origin else { return true }
        guard let parsed = WebOrigin(origin) else { return false }
        return parsed == WebOrigin(baseURL) || allowedOrigins.contains(parsed)
    }

    /// Where its RFC 9728 metadata is served.
    public var resourceMetadataURL: String { baseURL + ".well-known/oauth-protected-resource/mcp" }
}
