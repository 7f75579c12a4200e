import BrowserPages

/// A sign-in half done (issue 88 item 3), as every family carries it to its second step: the person proved a first
/// factor and is asked for a code before their session opens. The family's fields (who, how they came in, where
/// they go next) ride a cookie sealed with its pages' key (``SealedCookie``) under its own purpose, for ``lifetime``
/// seconds; nothing is stored, and the cookie alone opens nothing (a code must follow, under the backoff).
public enum SecondStepCookie {
    /// Seconds the first factor holds for the second: five minutes.
    public static let lifetime: Int64 = 300

    /// The cookie value of `fields` (none may hold a newline).
    /// - Throws: sealing errors.
    public static func seal(_ fields: [String], purpose: String, browserKey: [UInt8], now: Int64) throws -> String {
        try SealedCookie.seal(
            Array(fields.joined(separator: "\n").utf8), browserKey: browserKey, purpose: purpose, binding: [],
            now: now, lifetime: lifetime)
    }

    /// The `count` fields a cookie value carries, when it is intact, unexpired, sealed for `purpose`, and its first
    /// field (who) is not empty; nil otherwise.
    public static func open(_ cookie: String, count: Int, purpose: String, browserKey: [UInt8], now: Int64)
        -> [String]?
    {
        guard
            let plain = SealedCookie.open(
                cookie, browserKey: browserKey, purpose: purpose, binding: [], now: now, lifetime: lifetime),
            case let parts = String(decoding: plain, as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            parts.count == count, !parts[0].isEmpty
        else { return nil }
        return parts
    }

    /// The name authenticator apps show above the code (the `otpauth://` URI's issuer): the host of `publicURL`, or
    /// `Postern`.
    public static func issuer(publicURL url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "Postern" }
        let host = url[scheme.upperBound...].prefix { $0 != "/" && $0 != ":" }
        return host.isEmpty ? "Postern" : String(host)
    }
}
