/// The one notice component of every server-rendered page (issue 68): a paragraph that says what came of an action, in
/// the colour of its kind, so that a refusal or a message held back never looks like something done.
///
/// Markup: `<p class="flash <kind>" role="status|alert" id="notice|error" data-notice="<kind>">`; an error keeps the
/// id and role it always had (`#error`, `alert`), success and warning keep `#notice` (`status`).
public struct PageNotice: Sendable, Hashable {
    /// What the notice says about the action.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// It was done as asked.
        case success
        /// It was taken but not done as asked (held, not sent; partly delivered).
        case warning
        /// It was refused or failed.
        case error
    }

    /// The sentence (plain text, escaped when drawn).
    public var text: String
    public var kind: Kind

    public init(_ text: String, _ kind: Kind) {
        self.text = text
        self.kind = kind
    }

    /// The notice's paragraph.
    public var html: HTML {
        let role = kind == .error ? "alert" : "status"
        let id = kind == .error ? "error" : "notice"
        return "<p class=\"flash \(kind.rawValue)\" role=\"\(role)\" id=\"\(id)\" data-notice=\"\(kind.rawValue)\">\(text)</p>"
    }

    /// The notices' style, part of ``HTMLPage/css``: a success green, a warning amber, an error red.
    static let css = """
        .flash{padding:.7rem 1rem;border-radius:8px;font-weight:600;border-left:4px solid currentColor}
        .flash.success{background:#e3f4ea;color:var(--ok)}.flash.warning{background:#fdf3dc;color:#7a4b00}
        .error{background:#fbe9e7;color:var(--bad)}
        """
}

extension HTML {
    /// `notice`'s paragraph, or nothing.
    public static func notice(_ notice: PageNotice?) -> HTML { notice?.html ?? .empty }

    /// A notice of `kind` saying `text`, or nothing when `text` is nil.
    public static func notice(_ text: String?, _ kind: PageNotice.Kind) -> HTML {
        text.map { PageNotice($0, kind).html } ?? .empty
    }
}
