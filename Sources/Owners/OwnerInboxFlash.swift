import Directory
import ServerKit

/// The one-time notice `/owner` shows after a post redirected to it, carried by the ``OwnerBrowser/flashCookie`` as a
/// code: which fixed text, and at most an account id to name the inbox by. Never a key or anything typed.
enum OwnerInboxFlash: Equatable {
    /// An inbox was linked.
    case linked(String)
    /// An app's grant was revoked.
    case revoked
    /// An inbox was unlinked: nobody holds it now.
    case unlinked
    /// An inbox was deleted with its mail.
    case deleted

    /// The cookie value.
    var code: String {
        switch self {
        case .linked(let accountID): "linked." + accountID
        case .revoked: "revoked"
        case .unlinked: "unlinked"
        case .deleted: "deleted"
        }
    }

    /// The notice a cookie value names; nil for anything else (a stale or forged cookie shows nothing).
    init?(code: String) {
        switch code {
        case "revoked": self = .revoked
        case "unlinked": self = .unlinked
        case "deleted": self = .deleted
        default:
            guard let linked = Self.parseLinked(code) else { return nil }
            self = linked
        }
    }

    /// `.linked` when `code` is `linked.` and a lowercase UUID.
    private static func parseLinked(_ code: String) -> OwnerInboxFlash? {
        guard code.hasPrefix("linked."), code.utf8.count == 43,
            code.utf8.dropFirst(7).allSatisfy({ $0 == UInt8(ascii: "-") || (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        return .linked(String(code.dropFirst(7)))
    }

    /// What the page shows: each of these is done as asked.
    func notice(inboxes: [OwnedInbox]) -> PageNotice { PageNotice(words(inboxes: inboxes), .success) }

    /// What the page says; an inbox named by the owner's own list only.
    func words(inboxes: [OwnedInbox]) -> String {
        switch self {
        case .linked(let accountID):
            guard let inbox = inboxes.first(where: { $0.accountID == accountID }) else { return "Inbox linked." }
            return "Linked \(inbox.address): it is yours to hold now."
        case .revoked: return "App disconnected: its access ended and its tokens no longer work."
        case .unlinked: return "Inbox unlinked: nobody holds it now. Its API key still works for whoever has it."
        case .deleted: return "Inbox deleted with all its mail. Its API key and sessions no longer work."
        }
    }
}
