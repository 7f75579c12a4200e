import HTTP1

/// A `Content-Security-Policy` as a value (issue 52): the pages' one base policy and the few ways a page widens it,
/// so that no surface writes the header by hand and a source is never text that could end or widen a directive.
///
/// - ``page``: nothing loads but inline style; forms post to this origin; no framing, no `<base>`.
/// - ``script(_:)``: the page, and scripts and connections from `source` (the web inbox's list and its live stream).
/// - ``frame(_:)``: the page, and frames from `source` (a message page's sandboxed HTML part); with
///   ``scripts(from:)``, scripts from a source too (the message page's, which sizes that frame).
/// - ``sandbox``: bytes served to be looked at, never run (an attachment, a raw source).
/// - ``framedDocument(images:)``: a document shown only in this origin's frames, sandboxed without scripts (its
///   origin kept, so the framing page may measure it), images from one route.
public struct ContentSecurityPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Where a directive lets something come from.
    public struct Source: Sendable, Hashable {
        let text: String
        /// Nothing.
        public static let none = Source(text: "'none'")
        /// This origin.
        public static let `self` = Source(text: "'self'")
        /// Inline style (never used for scripts here).
        static let unsafeInline = Source(text: "'unsafe-inline'")
        /// The `sandbox` directive's one relaxation used here: the document keeps its origin (never with scripts).
        static let allowSameOrigin = Source(text: "allow-same-origin")
        /// A scheme, host or URL, or nil when `text` holds what could end or widen a directive (`;`, `,`, a quote,
        /// a `*`, white space, a control character) or is empty.
        public static func url(_ text: String) -> Source? {
            let refused = text.unicodeScalars.contains {
                ";,*'\"".unicodeScalars.contains($0) || $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F
            }
            return text.isEmpty || refused ? nil : Source(text: text)
        }
    }

    /// The directives in the order they are written.
    public private(set) var directives: [(name: String, sources: [Source])]

    /// A pages' policy: `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none';
    /// base-uri 'none'`.
    public static let page = ContentSecurityPolicy(directives: [
        ("default-src", [.none]), ("style-src", [.unsafeInline]), ("form-action", [.self]),
        ("frame-ancestors", [.none]), ("base-uri", [.none]),
    ])

    /// Bytes that must not run: `default-src 'none'; sandbox`.
    public static let sandbox = ContentSecurityPolicy(directives: [("default-src", [.none]), ("sandbox", [])])

    /// ``page`` with `script-src` and `connect-src` from `source`.
    public static func script(_ source: Source) -> Self {
        page.inserting([("script-src", [source]), ("connect-src", [source])])
    }

    /// ``page`` with `frame-src` from `source`.
    public static func frame(_ source: Source) -> Self { page.inserting([("frame-src", [source])]) }

    /// A document shown in this origin's frames only, sandboxed (no script, form, popup or navigation of the top;
    /// `allow-same-origin` alone, so that the framing page's own script may read its height: with no script of its
    /// own the document can do nothing with its origin), with images from `images` alone (none when nil).
    public static func framedDocument(images: Source?) -> Self {
        ContentSecurityPolicy(directives: [
            ("default-src", [.none]), ("img-src", [images ?? .none]), ("style-src", [.unsafeInline]),
            ("form-action", [.none]), ("frame-ancestors", [.self]), ("base-uri", [.none]),
            ("sandbox", [.allowSameOrigin]),
        ])
    }

    /// This policy with `script-src` from `source` (and no `connect-src`): a page whose script only works on the page.
    public func scripts(from source: Source) -> Self { inserting([("script-src", [source])]) }

    /// This policy with `source` added to `form-action` (a consent form whose answer redirects to an app).
    public func formAction(adding source: Source) -> Self {
        var policy = self
        for index in policy.directives.indices where policy.directives[index].name == "form-action" {
            policy.directives[index].sources.append(source)
        }
        return policy
    }

    /// The header's value.
    public var description: String {
        directives.map { ([$0.name] + $0.sources.map(\.text)).joined(separator: " ") }.joined(separator: "; ")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// The page directives' own, with `extra` after `style-src` (where the hand-written policies had them).
    private func inserting(_ extra: [(name: String, sources: [Source])]) -> Self {
        var policy = self
        let after = (policy.directives.firstIndex { $0.name == "style-src" } ?? 0) + 1
        policy.directives.insert(contentsOf: extra, at: after)
        return policy
    }
}

extension HTTPResponse {
    /// Sets `Content-Security-Policy` to `policy`.
    public mutating func setPolicy(_ policy: ContentSecurityPolicy) {
        headers.replaceOrAdd("Content-Security-Policy", policy.description)
    }
}
