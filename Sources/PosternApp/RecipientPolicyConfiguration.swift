import ServerKit

/// Who local delivery (SMTP, JMAP's submission, `postern mail deliver`) takes mail for besides the accounts: the
/// subaddress delimiters and the catch-all.
///
/// ## Configuration keys
/// - `POSTERN_SMTP_ACCEPT` (`local` or `any`, default local): ``acceptAny``.
/// - `POSTERN_RECIPIENT_DELIMITER` (ASCII punctuation or digits without `@`, empty for none, default `+`):
///   ``recipientDelimiter``.
/// - `POSTERN_CATCH_ALL_QUOTA` (positive bytes, default 1 GiB): ``catchAllQuota``.
public struct RecipientPolicyConfiguration: Sendable {
    /// Whether mail for unknown local users and other domains is kept in the catch-all instead of refused with `550`.
    /// Default false. Nothing is ever relayed.
    public var acceptAny = false
    /// The subaddress delimiters: `alice+tag@dom` is delivered to `alice@dom` when `alice+tag` itself is no account.
    /// Default `+`; empty turns subaddressing off.
    public var recipientDelimiter = "+"
    /// Bytes the catch-all may hold; past it, `552 5.2.2`. Default 1 GiB.
    public var catchAllQuota: Int64 = 1 << 30

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let accept = try config.choice("POSTERN_SMTP_ACCEPT", ["local", "any"]) { acceptAny = accept == "any" }
        if let delimiter = config.text("POSTERN_RECIPIENT_DELIMITER") { recipientDelimiter = delimiter }
        if let bytes = try config.integer("POSTERN_CATCH_ALL_QUOTA") { catchAllQuota = Int64(bytes) }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard recipientDelimiter.allSatisfy({ $0 != "@" && $0.isASCII && !$0.isWhitespace && !$0.isLetter }) else {
            throw ConfigurationError(
                key: "POSTERN_RECIPIENT_DELIMITER", message: "must be ASCII punctuation or digits, without @")
        }
        guard catchAllQuota > 0 else {
            throw ConfigurationError(key: "POSTERN_CATCH_ALL_QUOTA", message: "must be positive")
        }
    }
}
