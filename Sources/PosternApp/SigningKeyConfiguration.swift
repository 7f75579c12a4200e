import JWT
import ServerKit
import SigningKeys

/// The signing keys: the operator's own pair, or the secret the generated ones are sealed under in PostgreSQL, and how
/// a running server re-reads and promotes them.
///
/// ## Configuration keys
/// - `JWT_PRIVATE_KEY` (PEM, literal `\n` meaning newline, default unset): ``privateKeyPEM``.
/// - `JWT_PUBLIC_KEY` (PEM, default unset): ``publicKeyPEM``.
/// - `POSTERN_KEY_SECRET` (at least 16 bytes, required with PostgreSQL): ``secret``.
/// - `POSTERN_KEY_RELOAD_SECONDS` (1 to 3600, default 30): ``reloadSeconds``.
/// - `POSTERN_KEY_PROMOTION_SECONDS` (0 to 86400, default see ``promotionSeconds``): ``promotionSeconds``.
public struct SigningKeyConfiguration: Sendable {
    /// PEM private key for RS256. Default nil: generated keys.
    public var privateKeyPEM: String?
    /// PEM public key for RS256.
    public var publicKeyPEM: String?
    /// The operator's secret the signing keys are sealed under when they live in a PostgreSQL database (at least 16
    /// bytes; required there, unused on SQLite). Never echoed.
    public var secret: String?
    /// How often a running server re-reads its signing keys, in seconds. Default 30.
    public var reloadSeconds = 30
    /// How long a rotated key is published before it signs, in seconds. Default nil: the reload interval plus the
    /// JWKS cache time plus the 30 s verification leeway (for clock skew), so that every instance and every client's
    /// cached JWKS know a key before a token carries it.
    public var promotionSeconds: Int?

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        privateKeyPEM = config.raw("JWT_PRIVATE_KEY").map(Self.pem)
        publicKeyPEM = config.raw("JWT_PUBLIC_KEY").map(Self.pem)
        secret = config.raw("POSTERN_KEY_SECRET")
        if let seconds = try config.integer("POSTERN_KEY_RELOAD_SECONDS") { reloadSeconds = seconds }
        promotionSeconds = try config.integer("POSTERN_KEY_PROMOTION_SECONDS")
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault (the secret's length is checked against
    /// the database: ``validate(for:)``).
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (1...3600).contains(reloadSeconds) else {
            throw ConfigurationError(key: "POSTERN_KEY_RELOAD_SECONDS", message: "must be from 1 to 3600")
        }
        if let promotionSeconds, !(0...86400).contains(promotionSeconds) {
            throw ConfigurationError(key: "POSTERN_KEY_PROMOTION_SECONDS", message: "must be from 0 to 86400")
        }
    }

    /// Refuses a PostgreSQL database without a long enough ``secret``: the keys live there, sealed under it.
    /// - Throws: ``ConfigurationError`` naming `POSTERN_KEY_SECRET`, never echoing it.
    public func validate(for database: StorageConfiguration.DatabaseLocation) throws {
        if case .postgres = database, (secret ?? "").utf8.count < DatabaseKeyStore.minimumSecretLength {
            throw ConfigurationError(
                key: "POSTERN_KEY_SECRET",
                message:
                    "must be set to at least \(DatabaseKeyStore.minimumSecretLength) bytes (e.g. openssl rand -hex "
                    + "32) when POSTERN_DATABASE_URL is PostgreSQL: the signing keys live in the database, sealed "
                    + "under it, and every instance needs the same")
        }
    }

    /// The promotion delay in effect: ``promotionSeconds`` or its default.
    public var effectivePromotionSeconds: Int {
        promotionSeconds ?? reloadSeconds + CommonRoutes.jwksMaxAge + Int(JWTKeySet.maximumLeeway)
    }

    /// PEM text with each literal `\n` (as an environment file writes it) a newline.
    private static func pem(_ text: String) -> String { text.replacingOccurrences(of: "\\n", with: "\n") }
}
