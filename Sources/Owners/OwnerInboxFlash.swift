import Directory

/// The one-time notice `/owner` shows after a post redirected to it, carried by the ``OwnerBrowser/flashCookie`` as a
/// code: which fixed text, and at most an account id to name the inbox by. Never a key or anything typed.
enum OwnerInboxFlash: Equatable {
    /// An inbox was linked.
    case linked(String)
    /// An app's grant was revoked.
    case revoked

    /// The cookie value.
    var code: String {
        switch self {
        case .linked(let accountID): "linked." + accountID
        case .revoked: "revoked"
        }
    }

    /// The notice a cookie value names; nil for anything else (a stale or forged cookie shows nothing).
    init?(code: String) {
        if code == "revoked" {
            self = .revoked
        } else if code.hasPrefix("linked."), code.utf8.count == 43,
            code.utf8.dropFirst(7).allSatisfy({ $0 == UInt8(ascii: "-") || (48...57).contains($0) || (97...102).contains($0) })
        {
            self = .linked(String(code.dropFirst(7)))
        } else {
            return nil
        }
    }

    /// What the page says; an inbox named by the owner's own list only.
    func words(inboxes: [OwnedInbox]) -> String {
        switch self {
        case .linked(let accountID):
            guard let inbox = inboxes.first(where: { $0.accountID == accountID }) else { return "Inbox linked." }
            return "Linked \(inbox.address): it is yours to hold now."
        case .revoked: return "App disconnected: its access ended and its tokens no longer work."
        }
    }
}
