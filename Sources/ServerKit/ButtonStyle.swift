/// A button's style, chosen by what its action does (issue 68): the page's main action is `primary` (the bare
/// `button`), an action that destroys or takes away (delete, remove, revoke, unlink) is `danger`, one that declines or
/// leaves (deny, sign out) is `secondary`. The classes are `danger` and `secondary`; the browser walk checks them.
public enum ButtonStyle: String, Sendable, CaseIterable {
    case primary
    case secondary
    case danger

    /// ` class="…"` for a `<button>`, nothing for a primary one.
    public var classAttribute: HTML { self == .primary ? .empty : " class=\"\(rawValue)\"" }

    /// The buttons' style, part of ``HTMLPage/css``; `.choices` sets opposite answers (Allow, Deny) well apart.
    static let css = """
        button.danger{background:var(--bad)}button.secondary{background:#fff;color:var(--ink);border:1px solid #8d8a82}
        button.secondary:hover{filter:none;background:var(--bg)}
        .choices{display:flex;flex-wrap:wrap;gap:.5rem 2.5rem;align-items:center}
        """
}
