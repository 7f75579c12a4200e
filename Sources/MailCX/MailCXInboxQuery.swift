/// What `GET /inbox/{address}` asks for, read from its query: where to start, how many new emails end the hold,
/// how many to list. Pure: text in, values out.
///
/// Rules (mail.cx's, and Postern's where mail.cx leaves them open):
/// 1. `since` absent, empty or `0`: from the start, so mail already there counts as new (what mail.cx's quick start
///    does with `since=0`). Otherwise a cursor this server gave as `next_since`: the decimal mail state of the address
///    when that answer was made; anything else is `invalid_since`. Clients must treat it as opaque.
/// 2. `count` (default 1) new emails end the hold at once; `limit` (default 20) is the most listed. Each a whole
///    number from 1 to 50, else `invalid_count` / `invalid_limit`.
public struct MailCXInboxQuery: Sendable, Equatable {
    /// The state to list what arrived after; nil: everything in the inbox.
    public let since: Int64?
    /// New emails that end the hold.
    public let count: Int
    /// Most emails listed, newest first.
    public let limit: Int

    /// Reads the three parameters (nil: absent).
    /// - Throws: ``MailCXError`` `.invalidSince`, `.invalidCount`, `.invalidLimit`.
    public init(since: String?, count: String?, limit: String?, maximum: Int = 50) throws(MailCXError) {
        switch since {
        case nil, ""?, "0"?: self.since = nil
        case let text?:
            guard let state = Self.number(text), state > 0 else { throw .invalidSince }
            self.since = state
        }
        self.count = try Self.bounded(count, default: 1, maximum: maximum, else: .invalidCount)
        self.limit = try Self.bounded(limit, default: 20, maximum: maximum, else: .invalidLimit)
    }

    /// The cursor of state `state`: what `next_since` carries.
    public static func cursor(_ state: Int64) -> String { String(state) }

    private static func bounded(_ text: String?, default value: Int, maximum: Int, else error: MailCXError)
        throws(MailCXError) -> Int
    {
        guard let text else { return value }
        guard let number = number(text), (1...Int64(maximum)).contains(number) else { throw error }
        return Int(number)
    }

    /// A decimal number of at most 18 digits, nothing else; nil otherwise.
    private static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int64(text)
    }
}
