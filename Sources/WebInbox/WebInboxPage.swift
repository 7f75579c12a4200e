import BrowserPages
import Foundation
import HTTP1
import MIME
import MailStore
import ServerKit
import Time

/// The web inbox's pages, rendered as ``HTML`` (every interpolated text escaped). Element ids are
/// stable (the browser tests find them): see each function.
enum WebInboxPage {
    static let csrfMessage = "This form expired. Go back, reload the page and try again."

    /// `/inbox/m/<mailbox>`, the address percent-encoded.
    static func mailboxPath(_ mailbox: String) -> String {
        "/inbox/m/" + PercentEncoding.encode(mailbox)
    }

    /// `/inbox/m/<mailbox>/<id>`.
    static func messagePath(_ mailbox: String, _ id: String) -> String {
        mailboxPath(mailbox) + "/" + PercentEncoding.encode(id)
    }

    /// A page with one message, in the frame.
    static func message(_ status: HTTPStatus, _ title: String, _ text: String) -> HTTPResponse {
        HTMLPage.response(
            status, BrowserPage.document(title: title, main: HTML.notice(text, .error)))
    }

    /// The one answer for a mailbox or message the viewer may not read, or that does not exist.
    static func notFound() -> HTTPResponse {
        message(.notFound, "Not found", "There is no such mailbox or message.")
    }

    /// A whole page of the signed-in viewer, in the one ``PageFrame`` (`#sign-out-form`, `#sign-out`); a Pro user's
    /// links to the Pro dashboard (`a#dashboard`), an owner's back to `/owner` (`a#owner-home`).
    /// - Parameter mainHasNavigation: `main` draws a `nav` of ``PageFrame/navigationClass`` (a list's folders).
    static func document(
        _ title: String, _ viewer: WebInboxViewer, csrf: String, main: HTML, css extra: String = "",
        mainHasNavigation: Bool = false
    ) -> HTML {
        var frame = PageFrame(
            title: title, heading: "<h1>\(HTML.address(title))</h1>",
            account: PageFrame.Account(
                label: viewer.label, signOutAction: viewer.signOutAction, csrfField: BrowserForms.csrfField,
                csrfToken: csrf),
            css: css + extra)
        frame.mainHasNavigation = mainHasNavigation
        if viewer.isProUser, viewer.hasDashboard {
            frame.navigation = PageFrame.Navigation(
                label: "Pro",
                links: [
                    PageFrame.Link("/inbox", "Mailboxes"),
                    PageFrame.Link(
                        WebInboxService.dashboardPath, "Pro dashboard", id: "dashboard",
                        current: title == "Pro dashboard"),
                ])
        } else if viewer.ownerID != nil {
            // An owner reads their inboxes here and manages them at `/owner`: the way back (`a#owner-home`).
            frame.navigation = PageFrame.Navigation(
                label: "Owner",
                links: [PageFrame.Link("/inbox", "Mailboxes"), PageFrame.Link("/owner", "Your inboxes", id: "owner-home")])
        }
        return frame.document(main: main)
    }

    /// `/inbox` with more than one mailbox: `#mailboxes`, one `a.mailbox-link` each.
    static func mailboxes(_ viewer: WebInboxViewer, csrf: String) -> HTML {
        // A Pro user's sandbox reads "Sandbox": its address is made up, not one they chose.
        let items = viewer.mailboxes.map { mailbox -> HTML in
            let text: HTML = mailbox == viewer.sandbox ? "Sandbox" : HTML.address(mailbox)
            return "<li><a class=\"mailbox-link\" href=\"\(mailboxPath(mailbox))\">\(text)</a></li>"
        }.joined()
        let main: HTML =
            viewer.mailboxes.isEmpty
            ? "<section class=\"card\" id=\"mailboxes\"><p id=\"no-mailboxes\">No mailbox to read yet.</p></section>"
            : "<section class=\"card\"><ul id=\"mailboxes\">\(items)</ul></section>"
        return document("Mailboxes", viewer, csrf: csrf, main: main)
    }

    /// The confirmation page of a one-time link: `#link-form`, `#open-mailbox`.
    static func link(token: String, csrf: String) -> HTML {
        let main: HTML = """
            <section class="card" id="link">
            <p>This link opens mail in the web inbox, once.</p>
            <form method="post" action="/inbox/link" id="link-form">
            <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrf)">
            <input type="hidden" name="token" value="\(token)">
            <button type="submit" id="open-mailbox">Open the mailbox</button>
            </form>
            </section>
            """
        return BrowserPage.document(title: "Open a mailbox", main: main)
    }

    /// A person's name and address as shown: `Name <address>`, or the address.
    static func person(_ address: MailAddress) -> String {
        guard let name = address.name, !name.isEmpty else { return address.email }
        return "\(name) <\(address.email)>"
    }

    /// A size in one binary unit system, as the quotas are (`654 B`, `1.5 KiB`, `250 MiB`, `1 GiB`): one decimal below
    /// 10 of a unit unless it is whole, else whole units. A no-break space keeps the number and its unit on one line.
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(max(0, bytes))
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = (value * 10).rounded()
        let number =
            unit > 0 && tenths < 100 && tenths.truncatingRemainder(dividingBy: 10) != 0
            ? "\(Int(tenths) / 10).\(Int(tenths) % 10)" : "\(Int(value.rounded()))"
        return number + "\u{00A0}" + units[unit]
    }

    /// A paperclip drawn inline (no emoji: a 📎 has no glyph without an emoji font), an image named `label`.
    static func paperclip(label: String) -> HTML {
        """
        <svg class="icon" role="img" aria-label="\(label)" viewBox="0 0 24 24" width="16" height="16" \
        fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">\
        <title>\(label)</title><path d="M21.44 11.05l-9.19 9.19a6 6 0 0 1-8.49-8.49l9.19-9.19\
        a4 4 0 0 1 5.66 5.66l-9.2 9.19a2 2 0 0 1-2.83-2.83l8.49-8.48"/></svg>
        """
    }

    /// `<time>` of Unix seconds, as every page shows an instant (``HTML/time(_:)``).
    static func time(_ seconds: Int64) -> HTML { HTML.time(seconds) }

    static let css = """
        h1{overflow-wrap:break-word}
        .size,.usage,time{white-space:nowrap}.attachment-mark svg,th svg{vertical-align:middle}
        form.inline button{margin:0}
        tr.unread td{font-weight:700}.subject a{color:inherit}.preview{color:var(--muted);font-weight:400}
        .search{display:flex;gap:.5rem;flex-wrap:wrap;align-items:end}.search label{margin:0}.search input{width:auto}
        .search button{margin:0}.paging{display:flex;gap:1rem}
        dl.headers{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
        dl.headers dt{font-weight:600;color:var(--muted)}dl.headers dd{margin:0;overflow-wrap:break-word}
        iframe.html-body{width:100%;min-height:24rem;border:1px solid var(--line);border-radius:8px;background:#fff}
        .table-wrap{overflow-x:auto;max-width:100%}
        @media (max-width:40rem){table,tbody,tr,td{display:block;width:100%}thead{display:none}
        tr{border-bottom:1px solid var(--line);padding:.5rem 0}td{border:0;padding:.15rem 0}}
        """
}
