/// Where a code was read.
public enum CodeSource: String, Sendable, Codable, CaseIterable {
    /// The decoded subject.
    case subject
    /// The decoded `text/plain` part.
    case text
    /// The visible text of the `text/html` part.
    case html
}

/// Why a token was taken for a code: each adds to its score (``ExtractedCode/score``).
public enum CodeReason: String, Sendable, Codable, CaseIterable {
    /// A code word (`code`, `OTP`, `PIN`, `验证码` ...) or a word of verifying or signing in stands before it on its line.
    case keywordBefore
    /// Such a word follows it on its line (`123456 is your code`).
    case keywordAfter
    /// Such a word ends a line above it, and the token starts its own line.
    case keywordAbove
    /// The token is alone on its line.
    case aloneOnLine
    /// The token is set in a bold, large or letter-spaced element of the HTML part.
    case emphasized
    /// The subject holds a code word, and the token stands out in the body (alone or emphasized).
    case subjectKeyword
    /// The token has six digits, the usual shape of a one-time code.
    case usualLength
    /// The same code is written in the subject and the body.
    case severalSources
}

/// A one-time code found in a message, with what it was found by.
public struct ExtractedCode: Sendable, Equatable, Codable {
    /// The code as written, its groups separated as written (`123456`, `123 456`, `ABC-123`); a non-breaking or thin
    /// space between groups is given as a space, and a code set one character a cell or spaced out character by
    /// character (`4 8 2 9 1 3`) is given whole (`482913`).
    public var value: String
    /// The sources that write it, in the order subject, text, HTML.
    public var sources: [CodeSource]
    /// How strongly its context says it is a code; codes are returned best first. A token needs at least
    /// ``MessageExtraction/minimumScore`` to be a code.
    public var score: Int
    /// Why, in the order of ``CodeReason``'s cases.
    public var reasons: [CodeReason]

    public init(value: String, sources: [CodeSource], score: Int, reasons: [CodeReason]) {
        self.value = value
        self.sources = sources
        self.score = score
        self.reasons = reasons
    }
}
