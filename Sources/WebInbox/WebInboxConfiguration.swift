import BrowserPages
import ServerKit
import SignInMethods

/// The web inbox's settings. The composition root sets them from the owners' (the public URL, the session lifetime,
/// the sign-in backoff), so that both page families behave alike; the live list's limits are its own keys.
///
/// ## Configuration keys
/// - `POSTERN_WEB_INBOX_EVENT_STREAMS` (positive integer, default 1024): ``maxEventStreams``.
/// - `POSTERN_WEB_INBOX_EVENT_STREAMS_PER_SESSION` (positive integer, default 8): ``maxEventStreamsPerSession``.
/// - `POSTERN_WEB_INBOX_PING_SECONDS` (5 to 300, default 25): ``pingSeconds``.
/// - `POSTERN_PRO_SECOND_FACTOR` (`off`, `optional` or `required-for-passwords`, default `optional`):
///   ``proSecondFactor``, the Pro surface's policy (the owners' own is read with theirs).
public struct WebInboxConfiguration: Sendable {
    /// The public base URL, for example `http://localhost:8080`: the HTML part's CSP names its `cid:` route under it,
    /// `postern web link` prints links under it, and cookies carry `Secure` when it is https.
    public var publicURL: String
    /// Seconds a web-inbox session lasts from sign-in. Default 12 hours.
    public var sessionLifetime: Int64 = 12 * 3600
    /// How recent a Pro user's sign-in must be for the dashboard to make an app password: the owners'
    /// (`POSTERN_OWNER_FRESH_PROOF_SECONDS`), set by the composition root. Default 300 seconds.
    public var freshProof = FreshProof(window: 300)
    /// Seconds a one-time link stays usable. Default 10 minutes.
    public var linkLifetime: Int64 = 600
    /// Seconds a signed `cid:` image URL of an HTML part stays valid. Default 1 hour.
    public var inlineImageLifetime: Int64 = 3600
    /// Messages per list page. Default 50.
    public var pageSize = 50
    /// When a Pro user's sign-in asks for a second factor (issue 88 item 3; `POSTERN_PRO_SECOND_FACTOR`): `off` (none
    /// asked for, `/inbox/two-step` not found), `optional` (who set one up is asked after their password; the default)
    /// or `required-for-passwords` (every password sign-in to the web inbox needs a code; who has none sets one up
    /// first). A passkey, a provider's sign-in and a pasted `tm_pro_` token are never asked (a token is as strong as
    /// the sign-in that made it); `required-except-passkeys` is the owners' alone and refused here.
    public var proSecondFactor = SecondFactorPolicy.optional
    /// How failed sign-ins slow an address or email (the owners' rules).
    public var backoff = SignInBackoff()
    /// The largest form body, in bytes. Default 16 KiB.
    public var bodyLimit = 16 * 1024
    /// The largest body of a message an owner sends (the compose form), in bytes. Default 256 KiB.
    public var composeBodyLimit = 256 * 1024
    /// Most live-list event streams open at once on this instance; one more is 503. Default 1024.
    public var maxEventStreams = 1024
    /// Most live-list event streams one session (a browser's tabs) holds open at once; one more is 429. Default 8.
    public var maxEventStreamsPerSession = 8
    /// Seconds between the pings of a quiet event stream; at each the stream asks again whether its session may
    /// still read the mailbox, and ends when it may not. Default 25 (proxies often drop a stream quiet for 30 s).
    public var pingSeconds = 25

    /// - Parameter publicURL: the public base URL.
    public init(publicURL: String) {
        self.publicURL = publicURL
    }

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names: this scopes it);
    /// ``publicURL`` is empty until the composition root knows it.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        self.init(publicURL: "")
        let pro = config.scoped(to: "POSTERN_PRO")
        let config = config.scoped(to: "POSTERN_WEB_INBOX")
        if let count = try config.integer("EVENT_STREAMS") { maxEventStreams = count }
        if let count = try config.integer("EVENT_STREAMS_PER_SESSION") { maxEventStreamsPerSession = count }
        if let seconds = try config.integer("PING_SECONDS") { pingSeconds = seconds }
        if let policy = try pro.choice("SECOND_FACTOR", Self.proSecondFactorPolicies.map(\.rawValue)) {
            proSecondFactor = SecondFactorPolicy(rawValue: policy) ?? .optional
        }
        try validate()
    }

    /// Whether a Pro user's password asks a second step under ``proSecondFactor`` (a code, or the required setup) for
    /// one whose factor is on (`enrolled`) or not: the web inbox's sign-in and Mail.td's `POST /api/user/login` ask
    /// this one question.
    public func proPasswordAsksSecondStep(enrolled: Bool) -> Bool {
        proSecondFactor.step(after: .password, enrolled: enrolled) != .none
    }

    /// The policies a Pro user's sign-in may have: a provider's sign-in is never asked for a code here.
    public static let proSecondFactorPolicies: [SecondFactorPolicy] = [.off, .optional, .requiredForPasswords]

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard maxEventStreams > 0 else {
            throw ConfigurationError(key: "POSTERN_WEB_INBOX_EVENT_STREAMS", message: "must be positive")
        }
        guard maxEventStreamsPerSession > 0 else {
            throw ConfigurationError(key: "POSTERN_WEB_INBOX_EVENT_STREAMS_PER_SESSION", message: "must be positive")
        }
        guard (5...300).contains(pingSeconds) else {
            throw ConfigurationError(key: "POSTERN_WEB_INBOX_PING_SECONDS", message: "must be from 5 to 300")
        }
        guard Self.proSecondFactorPolicies.contains(proSecondFactor) else {
            throw ConfigurationError(
                key: "POSTERN_PRO_SECOND_FACTOR", message: "must be off, optional or required-for-passwords")
        }
    }

    /// The base URL without a trailing `/`.
    var baseURL: String {
        publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
    }

    /// Whether cookies carry `Secure`: the public URL is https.
    public var secureCookies: Bool { publicURL.lowercased().hasPrefix("https://") }
}
