/// How many keywords the store keeps and how long each may be (issue 81 item 12): one place that every door writing
/// keywords meets, because the store refuses the write (``MailStoreError/keywordLimit(_:)``): IMAP's STORE and
/// APPEND (`NO [LIMIT]`), JMAP's `Email/set` (`tooManyKeywords`, `invalidProperties`), the web inbox, Mailpit's tags.
/// Without them one free account put 25,000 keywords on one message, a 194 KB `FLAGS` line for every client of it.
///
/// The system flags' keywords (``systemKeywords``) are not counted: any message may carry all of them. A write is
/// refused only for what it adds, so a message or an address past a cap (stored before there were caps) may still
/// lose keywords and keep those it has.
public struct MailKeywordLimits: Sendable, Equatable {
    /// Which cap a write would pass.
    public enum Limit: Sendable, Equatable {
        /// A keyword longer than ``MailKeywordLimits/maxKeywordBytes``.
        case keywordLength
        /// More than ``MailKeywordLimits/maxPerMessage`` keywords on one message.
        case perMessage
        /// More than ``MailKeywordLimits/maxPerAddress`` distinct keywords in one address's mail.
        case perAddress
    }

    /// The most bytes (UTF-8) of one keyword. Default 50, Dovecot's `mail_max_keyword_length`.
    public var maxKeywordBytes = 50
    /// The most keywords on one message. Default 64: far more than a client sets (Thunderbird's five tags, Mailpit's
    /// handful), and a message's `FLAGS` then stays under 3.5 KB whatever they are.
    public var maxPerMessage = 64
    /// The most distinct keywords among one address's messages, its folders together (JMAP sees one account, and
    /// IMAP's `FLAGS` of a mailbox lists every keyword its messages carry). Default 256: four messages' worth of a
    /// full set, a `FLAGS` answer under 14 KB.
    public var maxPerAddress = 256

    /// The defaults.
    public init() {}

    /// The keywords of IMAP's system flags and JMAP's read status, never counted.
    public static let systemKeywords: Set<String> = ["$seen", "$flagged", "$answered", "$draft", "$deleted"]

    /// The keywords of `keywords` that a cap counts.
    public static func counted(_ keywords: Set<String>) -> Set<String> { keywords.subtracting(systemKeywords) }

    /// The cap a message passes when its keywords go from `before` to `after`; nil when it passes none, or when the
    /// change adds no counted keyword.
    public func violation(before: Set<String>, after: Set<String>) -> Limit? {
        let kept = Self.counted(after)
        let added = kept.subtracting(before)
        guard !added.isEmpty else { return nil }
        if added.contains(where: { $0.utf8.count > maxKeywordBytes }) { return .keywordLength }
        return kept.count > maxPerMessage ? .perMessage : nil
    }

    /// ``Limit/perAddress`` when an address whose mail carries the distinct keywords `known` would pass the cap by
    /// taking `added` (counted keywords); nil when they are known already or fit.
    public func violation(adding added: Set<String>, toAddressWith known: Set<String>) -> Limit? {
        let new = Self.counted(added).subtracting(known)
        return !new.isEmpty && known.count + new.count > maxPerAddress ? .perAddress : nil
    }

    /// Of `offered` (the tags a sender's `X-Tags` header asks for), those a message already given `keywords` may
    /// take too, in name order (the same header keeps the same tags): none longer than ``maxKeywordBytes``, no more
    /// than the message's cap leaves room for, and none new to an address whose mail carries `known` once it holds
    /// ``maxPerAddress``. A sender's header never has its message refused: what does not fit is dropped.
    public func fitting(_ offered: Set<String>, besides keywords: Set<String>, known: Set<String>) -> Set<String> {
        var onMessage = Self.counted(keywords)
        var inAddress = known
        var taken: Set<String> = []
        let fresh = Self.counted(offered).subtracting(onMessage).sorted()
        for keyword in fresh where keyword.utf8.count <= maxKeywordBytes {
            guard onMessage.count < maxPerMessage else { break }
            if !inAddress.contains(keyword) {
                guard inAddress.count < maxPerAddress else { continue }
                inAddress.insert(keyword)
            }
            onMessage.insert(keyword)
            taken.insert(keyword)
        }
        return taken
    }
}
