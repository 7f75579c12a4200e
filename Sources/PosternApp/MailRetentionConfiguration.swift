import ConfigurationReading
import MailStore

/// How much mail the server keeps (issue 71 item 5): at most ``maxMessages`` for each address and none older than
/// ``maxAge``, the oldest pruned first in the background; each address (an inbox, a Pro user's sandbox, the
/// catch-all) counted on its own, so no address loses mail for another's (issue 81 item 8). Unlimited by default
/// (`make run` keeps everything, as before); the test profile takes Mailpit's defaults (500 messages, no age limit).
///
/// ## Configuration keys
/// - `POSTERN_MAIL_MAX_MESSAGES` (a positive integer, or `off`/`0` for no limit; default off; 500 under
///   `--profile test`): ``maxMessages``.
/// - `POSTERN_MAIL_MAX_AGE` (a duration: seconds, or a number with `s`, `m`, `h` or `d`, as `12h` or `7d`; `off`/`0`
///   for no limit; default off): ``maxAge``.
public struct MailRetentionConfiguration: Sendable, Equatable {
    /// Most messages one address keeps; nil: no limit.
    public var maxMessages: Int?
    /// Seconds after arrival a message is kept; nil: no limit.
    public var maxAge: Int64?
    /// How often the background pass runs: 10 s (not a key: a limit is reached between passes by at most what
    /// arrives in ten seconds).
    public static let interval: Duration = .seconds(10)

    /// Every default: no limit.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let text = config.nonEmptyText("POSTERN_MAIL_MAX_MESSAGES"), !Self.isOff(text) {
            guard let count = Int(text), count > 0 else {
                throw config.error("POSTERN_MAIL_MAX_MESSAGES", "must be a positive number of messages, or off")
            }
            maxMessages = count
        }
        if let text = config.nonEmptyText("POSTERN_MAIL_MAX_AGE"), !Self.isOff(text) {
            guard let seconds = Self.seconds(text) else {
                throw config.error("POSTERN_MAIL_MAX_AGE", "must be a duration such as 3600, 90m, 12h or 7d, or off")
            }
            maxAge = seconds
        }
    }

    /// The store's limits.
    public var retention: MailRetention { MailRetention(maxMessages: maxMessages, maxAge: maxAge) }

    private static func isOff(_ text: String) -> Bool { ["off", "0"].contains(text.lowercased()) }

    /// `text` as positive seconds: digits, optionally followed by `s`, `m`, `h` or `d`; nil for anything else or more
    /// than 100 years.
    static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var digits = Substring(text.lowercased())
        var unit: Int64 = 1
        if let last = digits.last, let scale = units[last] {
            unit = scale
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = Int64(digits), count > 0,
            count <= 100 * 365 * 86400 / unit
        else { return nil }
        return count * unit
    }
}
