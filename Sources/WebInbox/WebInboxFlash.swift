import AuthCrypto
import ServerKit

/// What a post of the Pro dashboard tells the page its 303 leads to, once: a notice of its kind (done, taken but not
/// done as asked, refused), a new API token or webhook secret (shown this once). Kept by ``WebInboxFlashes``.
public struct WebInboxFlash: Sendable, Equatable {
    /// `#notice` (success, warning) or `#error` (error), in its kind's colour.
    public var notice: PageNotice?
    /// A `tm_pro_` token just made: `#token-shown`.
    public var token: String?
    /// A webhook signing secret just made or rotated: `#webhook-secret-shown`.
    public var webhookSecret: String?
    /// An app password just made: `#app-password-shown`.
    public var appPassword: String?

    /// The letter of a notice of each kind in ``encoded`` (`n` and `e` as before the kinds, `a` for amber).
    private static let letters: [(PageNotice.Kind, String)] = [(.success, "n"), (.warning, "a"), (.error, "e")]

    /// One line a field: its letter and the value in base64url (so no value can forge a line).
    var encoded: [UInt8] {
        var lines: [String] = []
        func add(_ letter: String, _ value: String?) {
            if let value { lines.append(letter + Base64URL.encode(Array(value.utf8))) }
        }
        if let notice, let letter = Self.letters.first(where: { $0.0 == notice.kind })?.1 { add(letter, notice.text) }
        add("t", token)
        add("w", webhookSecret)
        add("p", appPassword)
        return Array(lines.joined(separator: "\n").utf8)
    }

    /// Memberwise.
    public init(
        _ notice: PageNotice? = nil, token: String? = nil, webhookSecret: String? = nil, appPassword: String? = nil
    ) {
        self.notice = notice
        self.token = token
        self.webhookSecret = webhookSecret
        self.appPassword = appPassword
    }

    /// An action done as asked, saying `text`.
    public static func success(_ text: String) -> WebInboxFlash { WebInboxFlash(PageNotice(text, .success)) }

    /// An action taken but not done as asked (a domain still pending), saying `text`.
    public static func warning(_ text: String) -> WebInboxFlash { WebInboxFlash(PageNotice(text, .warning)) }

    /// An action refused or failed, saying `text`.
    public static func error(_ text: String) -> WebInboxFlash { WebInboxFlash(PageNotice(text, .error)) }

    /// The flash ``encoded`` wrote; nil for anything else.
    init?(encoded bytes: [UInt8]) {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let letter = String(line.prefix(1))
            let rest = String(line.dropFirst())
            guard let raw = Base64URL.decode(rest) else { return nil }
            let value = String(decoding: raw, as: UTF8.self)
            if let kind = Self.letters.first(where: { $0.1 == letter })?.0 {
                notice = PageNotice(value, kind)
                continue
            }
            switch letter {
            case "t": token = value
            case "w": webhookSecret = value
            case "p": appPassword = value
            default: return nil
            }
        }
    }
}
