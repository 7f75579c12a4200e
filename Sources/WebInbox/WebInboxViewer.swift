import BrowserPages
import EmailAddresses
import MailStore

/// Who reads, as one request found them: the label shown, the mailboxes they may read (asked afresh), and the
/// cookies and CSRF tokens of the session that proved it (the web inbox's own, or an owner's).
struct WebInboxViewer: Sendable {
    enum Kind: Sendable, Equatable {
        case owner
        case session(WebInboxPrincipal)
    }

    var kind: Kind
    /// What the header shows: the owner's email, the account's address, the Pro user's email, the linked
    /// address.
    var label: String
    /// The addresses this viewer may read; any other is a 404. Empty for the all-mail view (``readsAllMail``) until a
    /// page that draws them fills it: that view reads whatever mailbox holds mail, looked up as a path names it.
    var mailboxes: [String]
    /// The forms of the session that signed the viewer in.
    var forms: BrowserForms
    /// The signed-in owner's id (kind ``Kind/owner``), who may write as their inboxes; nil for everyone else.
    var ownerID: String? = nil
    /// A Pro user's SMTP sandbox among ``mailboxes`` (listed as "Sandbox"), nil for anyone else or before it has one.
    var sandbox: String?
    /// Whether a Pro user's pages link to the Pro dashboard (`a#dashboard`): the server has one.
    var hasDashboard = false
    /// Whether the viewer only reads (``WebInboxPrincipal/allMail``): the pages show no delete, mark or reply, the
    /// posts that would change a message are refused, and opening a message leaves it unread.
    var readOnly = false
    /// The session that signed the viewer in, as a key that names it without being it (a digest of its token): the
    /// live list's streams are counted per session.
    var session = ""

    /// The mailbox of this viewer's that `mailbox` names (compared as addresses are, ``EmailAddress``), as stored; nil when it is none of
    /// theirs. The all-mail view asks `store` for that one address, never for the list of them all.
    func readable(_ mailbox: String, in store: MailStore) async throws -> String? {
        if readsAllMail { return try await store.holdingAddress(mailbox) }
        return mailboxes.first { EmailAddress.same($0, mailbox) }
    }

    /// Whether this is the operator's read-only view of all mail (``WebInboxPrincipal/allMail``).
    var readsAllMail: Bool { kind == .session(.allMail) }

    /// Whether a Pro user signed in (by password or API token).
    var isProUser: Bool {
        if case .session(.proUser) = kind { return true }
        return false
    }

    /// Where the sign-out form posts: the owner's own sign-out, or the web inbox's.
    var signOutAction: String {
        kind == .owner ? "/owner/sign-out" : "/inbox/sign-out"
    }
}
