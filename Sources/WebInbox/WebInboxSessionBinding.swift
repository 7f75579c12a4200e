/// What a web-inbox session rests on besides its cookie, made at sign-in and checked on every request, so that what
/// ends the credential it was opened with ends the session too: a password reset moves the token epoch on, revoking
/// the pasted `tm_pro_` token ends it, a linked address coming to another account ends it.
///
/// Stored as text in the sessions table's `binding` column: ``encoded`` and ``init(encoded:)`` are its one codec, and
/// the spellings are fixed (sessions opened before a release go on working after it).
public enum WebInboxSessionBinding: Sendable, Equatable {
    /// The operator's view of all mail (`all`): it rests on the link alone (single use, ten minutes) and the session's
    /// lifetime.
    case allMail
    /// The account's or Pro user's token epoch at sign-in (`epoch:<n>`).
    case tokenEpoch(Int64)
    /// The `tm_pro_` API token a Pro user signed in with, by its id (`token:<id>`).
    case apiToken(id: String)
    /// The account that had a linked address (`account:<id>`); nil for an address that only a custom domain's
    /// catch-all takes (`account:`).
    case account(id: String?)
    /// The SMTP catch-all's mailbox (`catch-all`), under its reserved address, which no account can take.
    case catchAll

    /// The `binding` column's text.
    public var encoded: String {
        switch self {
        case .allMail: "all"
        case .tokenEpoch(let epoch): "epoch:" + String(epoch)
        case .apiToken(let id): "token:" + id
        case .account(let id): "account:" + (id ?? "")
        case .catchAll: "catch-all"
        }
    }

    /// The binding `text` spells (``encoded``); nil for anything else, which no session rests on.
    public init?(encoded text: String) {
        switch text {
        case "all": self = .allMail
        case "catch-all": self = .catchAll
        default:
            guard let colon = text.firstIndex(of: ":") else { return nil }
            let value = String(text[text.index(after: colon)...])
            switch text[..<colon] {
            // Only the spelling ``encoded`` writes: `epoch:+1` or `epoch:01` is no binding.
            case "epoch":
                guard let epoch = Int64(value), String(epoch) == value else { return nil }
                self = .tokenEpoch(epoch)
            case "token": self = .apiToken(id: value)
            case "account": self = .account(id: value.isEmpty ? nil : value)
            default: return nil
            }
        }
    }
}
