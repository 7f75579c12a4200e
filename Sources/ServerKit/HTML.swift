import HTTP1

/// A piece of HTML that is safe to send: literal text is the programmer's markup, and every interpolated value that
/// is not itself `HTML` is escaped (``HTMLText/escape(_:)``), so a page cannot put a user's text in as markup by
/// forgetting a call. The one way to make `HTML` from text without escaping it is ``init(unsafe:)``.
///
/// ```swift
/// let name = "<Ada>"
/// let item: HTML = "<li class=\"who\">\(name)</li>"   // <li class="who">&lt;Ada&gt;</li>
/// let list: HTML = "<ul>\(items.joined(separator: "\n"))</ul>"  // items: [HTML], inserted as they are
/// let link: HTML = "<a href=\"/owner/sign-in?next=\(query: next)\">"  // next percent-encoded, then escaped
/// ```
public struct HTML: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The markup, ready to send.
    public private(set) var text: String

    /// Markup taken as it is, with no escaping.
    /// - Warning: the raw door. `text` must be markup its maker wrote or escaped; never text from a request, a
    ///   message or the store. Grep for `HTML(unsafe:` to review every use.
    public init(unsafe text: String) { self.text = text }

    /// A literal with no interpolation: the programmer's markup.
    public init(stringLiteral value: String) { self.text = value }

    /// A literal with interpolations, each escaped unless it is `HTML`.
    public init(stringInterpolation: StringInterpolation) { self.text = stringInterpolation.text }

    /// Nothing.
    public static let empty = HTML(unsafe: "")

    /// `text` escaped for element content and quoted attribute values.
    public static func text(_ text: String) -> HTML { HTML(unsafe: HTMLText.escape(text)) }

    /// An email address (or name and address) escaped, with line-break opportunities (``HTMLText/address(_:)``).
    public static func address(_ text: String) -> HTML { HTML(unsafe: HTMLText.address(text)) }

    public var description: String { text }

    /// Whether there is no markup at all.
    public var isEmpty: Bool { text.isEmpty }

    /// `lhs` then `rhs`.
    public static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(unsafe: lhs.text + rhs.text) }

    /// Appends `rhs`.
    public static func += (lhs: inout HTML, rhs: HTML) { lhs.text += rhs.text }

    /// Builds an `HTML` literal: literal segments as written, values escaped unless they are `HTML`.
    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        /// The programmer's markup, as written.
        public mutating func appendLiteral(_ literal: String) { text += literal }

        /// Markup, inserted as it is.
        public mutating func appendInterpolation(_ html: HTML) { text += html.text }

        /// Markup or nothing.
        public mutating func appendInterpolation(_ html: HTML?) { text += html?.text ?? "" }

        /// Text, escaped.
        public mutating func appendInterpolation(_ value: String) { text += HTMLText.escape(value) }

        /// Text, escaped.
        public mutating func appendInterpolation(_ value: Substring) { text += HTMLText.escape(String(value)) }

        /// A value in a URL's query, in its own escaping context (issue 67): percent-encoded (``PercentEncoding``),
        /// then escaped for the attribute, so that `href="/owner/sign-in?next=\(query: next)"` carries all of a
        /// `next` with `&`, `#` or `=` in it. `scripts/check-html` refuses a query value interpolated without it.
        public mutating func appendInterpolation(query value: String) {
            text += HTMLText.escape(PercentEncoding.encode(value))
        }

        /// Any other value's description, escaped (a number, a URL, an enum's text).
        public mutating func appendInterpolation<T: CustomStringConvertible>(_ value: T) {
            text += HTMLText.escape(value.description)
        }
    }
}

extension Sequence where Element == HTML {
    /// The pieces one after another, `separator` between each two.
    public func joined(separator: HTML = .empty) -> HTML {
        var out = ""
        var first = true
        for piece in self {
            if !first { out += separator.text }
            out += piece.text
            first = false
        }
        return HTML(unsafe: out)
    }
}
