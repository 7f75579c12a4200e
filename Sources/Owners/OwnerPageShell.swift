import BrowserPages
import ServerKit

/// The frame of every owner-facing page (owner pages, sign-in, the authorization server's consent): the browser pages'
/// ``PageFrame`` (``BrowserPage/frame(title:)``) with the signed-in owner and the owner links.
public enum OwnerPageShell {
    /// A whole document.
    /// - Parameters:
    ///   - title: the page title (plain text).
    ///   - main: the content.
    ///   - owner: the signed-in owner, shown with a sign-out form; nil before sign-in.
    ///   - csrfToken: the CSRF token for the sign-out form (needed when `owner` is set).
    public static func document(title: String, main: HTML, owner: Owner? = nil, csrfToken: String? = nil) -> HTML {
        var frame = BrowserPage.frame(title: title)
        if let owner, let csrfToken {
            frame.account = PageFrame.Account(
                label: owner.email, signOutAction: "/owner/sign-out", csrfField: OwnerBrowser.csrfField,
                csrfToken: csrfToken)
            // A signed-in owner reads their inboxes' mail in the web inbox (`a#read-mail`), from every owner page.
            frame.navigation = PageFrame.Navigation(
                label: "Owner",
                links: [
                    PageFrame.Link("/owner", "Your inboxes", current: title == "Your inboxes"),
                    PageFrame.Link("/owner/domains", "Your domains", current: title == "Your domains"),
                    PageFrame.Link("/owner/clients", "Agent clients", current: title == "Agent clients"),
                    PageFrame.Link("/owner/app-passwords", "App passwords", current: title == "App passwords"),
                    PageFrame.Link("/owner/actors", "Acting for you", current: title == OwnerActorsPage.title),
                    PageFrame.Link("/inbox", "Read mail", id: "read-mail", current: title == "Read mail"),
                ])
        }
        return frame.document(main: main)
    }
}
