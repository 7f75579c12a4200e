import AuthCrypto

/// What a post of the Pro dashboard tells the page its 303 leads to, once: a notice or an error, a new API token or
/// webhook secret (shown this once). Kept by ``WebInboxFlashes``.
public struct WebInboxFlash: Sendable, Equatable {
    /// `#notice`.
    public var notice: String?
    /// `#error`.
    public var error: String?
    /// A `tm_pro_` token just made: `#token-shown`.
    public var token: String?
    /// A webhook signing secret just made or rotated: `#webhook-secret-shown`.
    public var webhookSecret: String?

    /// One line a field: its letter and the value in base64url (so no value can forge a line).
    var encoded: [UInt8] {
        var lines: [String] = []
        func add(_ letter: String, _ value: String?) {
            if let value { lines.append(letter + Base64URL.encode(Array(value.utf8))) }
        }
        add("n", notice)
        add("e", error)
        add("t", token)
        add("w", webhookSecret)
        return Array(lines.joined(separator: "\n").utf8)
    }

    /// Memberwise.
    public init(notice: String? = nil, error: String? = nil, token: String? = nil, webhookSecret: String? = nil) {
        self.notice = notice
        self.error = error
        self.token = token
        self.webhookSecret = webhookSecret
    }

    /// The flash ``encoded`` wrote; nil for anything else.
    init?(encoded bytes: [UInt8]) {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let letter = line.prefix(1)
            let rest = String(line.dropFirst())
            guard let raw = Base64URL.decode(rest) else { return nil }
            let value = String(decoding: raw, as: UTF8.self)
            switch letter {
            case "n": notice = value
            case "e": error = value
            case "t": token = value
            case "w": webhookSecret = value
            default: return nil
            }
        }
    }
}
