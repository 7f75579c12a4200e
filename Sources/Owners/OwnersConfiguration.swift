import BrowserPages
import CustomDomains
import Directory
import PasswordHashing
import ServerKit
import SignInMethods
import Storage

/// Everything the owners' side (people who sign in and hold agent inboxes) can be told; every default is stated here.
///
/// ``init(config:)`` reads the operator's keys from a reader scoped to `POSTERN_OWNER` and refuses a bad value naming
/// its key; the composition root sets what other surfaces share (``publicURL``, ``mxHost``, ``servedDomains``,
/// ``outsideSendingNeedsApproval``, ``rateLimitsEnabled``, ``instances``). The custom domains' model and the DNS
/// resolver are not settings: ``OwnerService`` is given the runtime's one of each.
///
/// ## Configuration keys
/// - `POSTERN_OWNER_SIGNUP` (`open` or `closed`, default closed): ``signUpOpen``.
/// - `POSTERN_OWNER_MAX_INBOXES` (integer, 1 to 100, default 50): ``maxInboxes``.
/// - `POSTERN_OWNER_SIGNUPS_PER_HOUR` (integer, 0 to 1000, default 5): ``signUpsPerHour``.
/// - `POSTERN_OWNER_FRESH_PROOF_SECONDS` (integer, 30 to 3600, default 300): ``freshProof``.
/// - `POSTERN_OWNER_MAX_APP_PASSWORDS` (integer, 1 to 100, default 20): ``maxAppPasswords``.
/// - `POSTERN_OWNER_SECOND_FACTOR` (`off`, `optional`, `required-for-passwords`, `required-except-passkeys`, default
///   optional): ``secondFactor``.
public struct OwnersConfiguration: Sendable {
    /// The public base URL (`POSTERN_PUBLIC_URL`); an https URL marks the cookies `Secure`.
    public var publicURL: String
    /// Whether anyone may create an owner at `/owner/sign-up` (`POSTERN_OWNER_SIGNUP=open`). Default false: the
    /// operator creates owners with `postern owner create`.
    public var signUpOpen = false
    /// Seconds a sign-in lasts. Default 12 hours.
    public var sessionLifetime: Int64 = 12 * 3600
    /// Argon2id costs of owners' passwords. Default m=19,456 KiB, t=2, p=1.
    public var argon2 = Argon2Parameters()
    /// How failed sign-ins slow an email: per client address after 5 failures, for everyone after 100 (see
    /// ``SignInBackoff`` for the defaults).
    public var backoff = SignInBackoff()
    /// Most inboxes one owner may hold, made or linked on the owner pages or at an app's consent
    /// (`POSTERN_OWNER_MAX_INBOXES`, 1 to 100). Default 50: owner pages make inboxes without the agent surface's proof
    /// of work, and open sign-up must not mint them without end.
    public var maxInboxes = 50
    /// New owners one client address (IPv6 per /64) may sign up per hour when sign-up is open
    /// (`POSTERN_OWNER_SIGNUPS_PER_HOUR`; 0 for no limit). Default 5. A token bucket held by each instance (shared out
    /// among `instances`), so a restart forgets it; a refused form (a taken email, a weak password) costs nothing.
    public var signUpsPerHour = 5
    /// How recent a sign-in must be for a session to make an app password (owners' and Pro users' alike;
    /// `POSTERN_OWNER_FRESH_PROOF_SECONDS`, 30 to 3600). Default 300 seconds: an older session signs in again first.
    public var freshProof = FreshProof(window: 300)
    /// Most app passwords one owner (or one Pro user) may have at once (`POSTERN_OWNER_MAX_APP_PASSWORDS`, 1 to 100).
    /// Default 20.
    public var maxAppPasswords = 20
    /// When a sign-in asks for a second factor (TOTP or a recovery code, issue 88) (`POSTERN_OWNER_SECOND_FACTOR`).
    /// Default ``SecondFactorPolicy/optional``: owners who set one up on `/owner/two-step` are asked for a code after
    /// their password; a passkey sign-in is never asked.
    public var secondFactor = SecondFactorPolicy.optional
    /// Most custom domains one owner may add. Default 5 (Mail.td's Pro limit, the one documented number).
    public var maxDomains = 5
    /// The host a custom domain's MX must name (`POSTERN_MX_HOST`).
    public var mxHost = "localhost"
    /// Domains this server serves itself (agent and mailbox domains): no owner may add them.
    public var servedDomains: [String] = []
    /// Whether an owner's inboxes send outside only once the operator made or approved the owner (outbound delivery on
    /// and `POSTERN_OUTBOUND_SENDERS=owned`): `/owner` then tells an owner who waits. Default false.
    public var outsideSendingNeedsApproval = false
    /// Per-address rate limit on the owner pages (`POSTERN_RATE_LIMITS`). Default on.
    public var rateLimitsEnabled = true
    /// Requests per minute per client address when rate limits are on. Default 60.
    public var requestsPerMinute = 60
    /// How many instances enforce the limit together (`POSTERN_INSTANCES`). Default 1.
    public var instances = 1
    /// Slots of the rate-limit table. Default 65,536.
    public var rateLimitTableCapacity = 65_536
    /// How many ceremonies nobody has signed in to may wait at once, owners' and Pro users' alike (passkey sign-ins'
    /// challenges, and apart from them sign-in providers' login transactions): each client its share, 100 by default,
    /// and all together 100,000 by default, a last resort (``UnauthenticatedRowLimits``; issue 81 item 10). A client
    /// past either is answered 503 until its ceremonies expire (five and ten minutes).
    public var signInCeremonies = UnauthenticatedRowLimits()
    /// Largest form body. Default 16 KiB.
    public var bodyLimit = 16 * 1024

    /// - Parameter publicURL: the public base URL, for example `http://localhost:8080`.
    public init(publicURL: String) {
        self.publicURL = publicURL
    }

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names: this scopes it);
    /// ``publicURL`` is empty until the composition root knows it.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        self.init(publicURL: "")
        let config = config.scoped(to: "POSTERN_OWNER")
        if let signUp = try config.choice("SIGNUP", ["open", "closed"]) { signUpOpen = signUp == "open" }
        if let count = try config.integer("MAX_INBOXES") { maxInboxes = count }
        if let count = try config.integer("SIGNUPS_PER_HOUR") { signUpsPerHour = count }
        if let seconds = try config.integer("FRESH_PROOF_SECONDS") { freshProof = FreshProof(window: Int64(seconds)) }
        if let count = try config.integer("MAX_APP_PASSWORDS") { maxAppPasswords = count }
        if let policy = try config.choice("SECOND_FACTOR", SecondFactorPolicy.allCases.map(\.rawValue)) {
            secondFactor = SecondFactorPolicy(rawValue: policy) ?? .optional
        }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (1...100).contains(maxInboxes) else {
            throw ConfigurationError(key: "POSTERN_OWNER_MAX_INBOXES", message: "must be from 1 to 100")
        }
        guard (0...1000).contains(signUpsPerHour) else {
            throw ConfigurationError(key: "POSTERN_OWNER_SIGNUPS_PER_HOUR", message: "must be from 0 to 1000")
        }
        guard (30...3600).contains(freshProof.window) else {
            throw ConfigurationError(key: "POSTERN_OWNER_FRESH_PROOF_SECONDS", message: "must be from 30 to 3600")
        }
        guard (1...100).contains(maxAppPasswords) else {
            throw ConfigurationError(key: "POSTERN_OWNER_MAX_APP_PASSWORDS", message: "must be from 1 to 100")
        }
    }

    /// Whether the public URL is https (cookies get `Secure`).
    public var secureCookies: Bool { publicURL.lowercased().hasPrefix("https://") }
}
