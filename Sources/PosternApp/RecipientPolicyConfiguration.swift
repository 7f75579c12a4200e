import ServerKit

/// Who local delivery (SMTP, JMAP's submission, `postern mail deliver`) takes mail for besides the accounts: the
/// subaddress delimiters and the catch-all; and whether it looks for each message's codes and links as it stores it.
///
/// ## Configuration keys
/// - `POSTERN_SMTP_ACCEPT` (`local` or `any`, default local): ``acceptAny``.
/// - `POSTERN_RECIPIENT_DELIMITER` (ASCII punctuation other than `@ . _ -`, empty for none, default `+`):
///   ``recipientDelimiter``.
/// - `POSTERN_CATCH_ALL_QUOTA` (positive bytes, default 1 GiB): ``catchAllQuota``.
/// - `POSTERN_MAIL_EXTRACT` (on/off, default on): ``extractsCodes``.
public struct RecipientPolicyConfiguration: Sendable {
    /// Whether mail for unknown local users and other domains is kept in the catch-all instead of refused with `550`.
    /// Default false. Nothing is ever relayed.
    public var acceptAny = false
    /// The subaddress delimiters: `alice+tag@dom` is delivered to `alice@dom` when `alice+tag` itself is no account.
    /// Default `+`; empty turns subaddressing off. None may be a character a served local part may hold
    /// (``localPartCharacters``): with `-`, someone could register `alice-github` and take the mail tagged for `alice`.
    public var recipientDelimiter = "+"
    /// Bytes the catch-all may hold; past it, `552 5.2.2`. Default 1 GiB.
    public var catchAllQuota: Int64 = 1 << 30
    /// Whether each delivered message's one-time codes and links are found as it is stored (issue 85, docs/codes.md).
    /// Off, the message is stored as one from before the feature (its codes and links null on every door) until
    /// `postern mail extract --backfill` finds them; mail written by a client (IMAP `APPEND`, JMAP drafts) is looked
    /// at either way. Default true.
    public var extractsCodes = true

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let accept = try config.choice("POSTERN_SMTP_ACCEPT", ["local", "any"]) { acceptAny = accept == "any" }
        if let delimiter = config.text("POSTERN_RECIPIENT_DELIMITER") { recipientDelimiter = delimiter }
        if let bytes = try config.integer("POSTERN_CATCH_ALL_QUOTA") { catchAllQuota = Int64(bytes) }
        if let extracting = try config.flag("POSTERN_MAIL_EXTRACT") { extractsCodes = extracting }
        try validate()
    }

    /// What the local parts this server serves may hold (agent usernames and Mail.td addresses: `a-z 0-9 . _ -`, any
    /// case): no delimiter may be one of them, or a username could be a tagged form of another.
    public static func localPartCharacters(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "._-".contains(character))
    }

    /// Whether `character` may be a delimiter: printable ASCII, not `@`, not a character of a served local part.
    static func mayDelimit(_ character: Character) -> Bool {
        guard let byte = character.asciiValue, (0x21...0x7E).contains(byte) else { return false }
        return character != "@" && !localPartCharacters(character)
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard recipientDelimiter.allSatisfy(Self.mayDelimit) else {
            throw ConfigurationError(
                key: "POSTERN_RECIPIENT_DELIMITER",
                message: "must be ASCII punctuation other than @ . _ - (letters, digits, . _ and - may be in usernames, "
                    + "so alice-x could be registered to take the mail tagged for alice)")
        }
        guard catchAllQuota > 0 else {
            throw ConfigurationError(key: "POSTERN_CATCH_ALL_QUOTA", message: "must be positive")
        }
    }
}
