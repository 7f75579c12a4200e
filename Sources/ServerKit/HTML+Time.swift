import Time

extension HTML {
    /// The one way a page shows an instant (issue 68): `<time datetime="2026-07-01T09:14:00Z">2026-07-01 09:14
    /// UTC</time>`, the exact instant in the attribute and minutes in UTC in the text, never wrapped.
    /// - Parameter seconds: Unix seconds.
    public static func time(_ seconds: Int64) -> HTML {
        let full = RFC3339.format(seconds)
        return "<time datetime=\"\(full)\">\(full.prefix(10)) \(full.dropFirst(11).prefix(5)) UTC</time>"
    }
}
