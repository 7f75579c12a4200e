import BrowserPages
import Foundation
import MailStore
import ServerKit

/// A page of a mailbox's list (ids in ``WebInboxService/list(_:_:_:)``).
struct WebInboxListPage {
    var mailbox: String
    var search: WebInboxSearch
    var messages: [MailListPage.Row]
    var position: Int
    var pageSize: Int
    var total: Int
    /// The notice after a post that redirected here (`#notice`), nil for none.
    var notice: PageNotice? = nil
    /// The mailbox's state when the list was read (before it was): the live stream says when it differs.
    var state: Int64 = 0
    /// An owner's messages from this inbox held in the outbox (`#held`), each with its release button.
    var held: [WebInboxHeldMessage] = []
    /// The mailbox's folders (decision 35), each a link (`#folder-<key>`: `#folder-inbox`, `#folder-sent`...).
    var folders = MailFolderTree(made: [])

    func render(_ viewer: WebInboxViewer, csrf: String) -> HTML {
        let path = WebInboxPage.mailboxPath(mailbox)
        let folders = self.folders.entries.map { entry -> HTML in
            let folder = entry.folder
            let current: HTML = folder == search.folder ? " aria-current=\"page\"" : ""
            let name = (self.folders.path(of: folder) ?? [entry.name]).joined(separator: " / ")
            return """
                <a id="folder-\(folder.rawValue)" href="\(path)?folder=\(query: folder.rawValue)"\(current)>\
                \(name)</a>
                """
        }.joined(separator: " ")
        let form: HTML = """
            <form method="get" action="\(path)" id="search-form" class="search" role="search">
            <input type="hidden" name="folder" value="\(search.folder.rawValue)">
            <div><label for="search-text">Text</label>
            <input id="search-text" name="text" type="search" value="\(search.text)"></div>
            <div><label for="search-from">From</label>
            <input id="search-from" name="from" type="search" value="\(search.from)"></div>
            <div><label for="search-subject">Subject</label>
            <input id="search-subject" name="subject" type="search" value="\(search.subject)"></div>
            <button type="submit" id="search-submit">Search</button>
            </form>
            """
        // Mail in Sent (and Drafts) was written here, not received: its time is when it was sent.
        let when = search.folder == .sent || search.folder == .drafts ? "Sent" : "Received"
        var body: HTML
        if messages.isEmpty {
            body = "<div id=\"messages\"><p id=\"empty\">No messages.</p></div>"
        } else {
            let rows = messages.map { row($0, when: when) }.joined(separator: "\n")
            body = """
                <div class="table-wrap"><table id="messages">
                <thead><tr><th scope="col">From</th><th scope="col">Subject</th><th scope="col">\(when)</th>
                <th scope="col">Size</th>\
                <th scope="col">\(WebInboxPage.paperclip(label: "Attachments"))</th></tr></thead>
                <tbody>
                \(rows)
                </tbody></table></div>
                """
        }
        var paging: [HTML] = []
        if position > 0 {
            paging.append(
                "<a id=\"newer\" href=\"\(path + search.query(position: max(0, position - pageSize)))\">Newer</a>")
        }
        if position + pageSize < total {
            paging.append("<a id=\"older\" href=\"\(path + search.query(position: position + pageSize))\">Older</a>")
        }
        let shown = messages.isEmpty ? "0" : "\(position + 1)–\(position + messages.count)"
        // The live script's hooks (WebInboxLiveScript): the stream, the state rendered, and on a later page the first.
        let first: HTML = position > 0 ? " data-first=\"\(path + search.query(position: 0))\"" : ""
        body += """
            <nav id="live" class="paging" aria-label="Pages" aria-live="polite" \
            data-events="\(path)/events" data-state="\(state)"\(first)>\
            <span id="count">\(shown) of \(total)</span>\
            \(paging.joined(separator: " ")) \
            <a id="reload" href="\(path + search.query(position: position))">Reload</a>\
            <span id="live-news"></span></nav>
            """
        // The all-mail view's home always lists its mailboxes (they are looked up there, not on this page).
        let all: HTML = viewer.readsAllMail || viewer.mailboxes.count > 1 ? " · <a id=\"all-mailboxes\" href=\"/inbox\">All mailboxes</a>" : ""
        // Owners write as their inboxes (`a#compose`); nobody else may.
        let compose: HTML =
            viewer.ownerID == nil ? "" : "<p><a id=\"compose\" href=\"\(path)/compose\">Write a message</a></p>"
        let main: HTML = """
            \(HTML.notice(notice))
            <nav id="folders" class="\(PageFrame.navigationClass)" aria-label="Folders">\(folders)\(all)</nav>
            \(compose)
            \(heldSection(csrf: csrf))
            <section class="card">\(form)</section>
            <section class="card" id="list">\(body)</section>
            <script src="\(WebInboxLiveScript.path)" defer></script>
            """
        return WebInboxPage.document(mailbox, viewer, csrf: csrf, main: main, mainHasNavigation: true)
    }

    /// `section#held`: each held message (`li.held-message`, `#held-{id}`) with its recipients, why, and a form that
    /// releases it (`#release-{id}`); nothing when there is none.
    private func heldSection(csrf: String) -> HTML {
        guard !held.isEmpty else { return .empty }
        let action = WebInboxPage.mailboxPath(mailbox) + "/release"
        let items = held.map { message -> HTML in
            let why = message.reason.map { "held: " + $0.explanation } ?? "held"
            let recipients = message.recipients.joined(separator: ", ")
            return """
                <li class="held-message" id="held-\(message.id)">To \(recipients) \
                (\(WebInboxPage.time(message.createdAt))): <span class="held-reason">\(why)</span>
                <form method="post" action="\(action)" class="inline">\
                <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrf)">\
                <input type="hidden" name="id" value="\(message.id)">\
                <button type="submit" id="release-\(message.id)">Release</button></form></li>
                """
        }.joined(separator: "\n")
        return """
            <section class="card" id="held"><h2>Held, not sent</h2>
            <p class="hint">Kept in this server's outbox. A release goes through the checks of a new message: it
            leaves once the reason is gone, and stays held, saying why, while it is not.</p>
            <ul>\(items)</ul></section>
            """
    }

    private func row(_ row: MailListPage.Row, when: String) -> HTML {
        let summary = row.summary
        let from = summary.from.first.map(WebInboxPage.person) ?? summary.envelopeFrom
        let subject = summary.subject.flatMap { $0.isEmpty ? nil : $0 } ?? "(no subject)"
        let link = WebInboxPage.messagePath(mailbox, summary.id)
        // A row without attachments has an empty cell and no label for it (a phone shows no bare "Attachments:").
        let attachment: HTML =
            !row.hasAttachments
            ? "<td class=\"attachments\"></td>"
            : """
            <td class="attachments" data-label="Attachments"><span class="attachment-mark">\
            \(WebInboxPage.paperclip(label: "Has attachments"))</span></td>
            """
        let unread: HTML = summary.isRead ? "" : " <span class=\"unread-mark\">(unread)</span>"
        return """
            <tr class="message\(summary.isRead ? "" : " unread")" id="message-\(summary.id)">
            <td data-label="From" class="from">\(HTML.address(from))</td>
            <td data-label="Subject"><span class="subject">\
            <a class="message-link" href="\(link)">\(subject)</a></span>\
            \(unread)<div class="preview">\(summary.preview)</div></td>
            <td data-label="\(when)" class="time">\(WebInboxPage.time(summary.receivedAt))</td>
            <td data-label="Size" class="size">\(WebInboxPage.size(summary.size))</td>
            \(attachment)
            </tr>
            """
    }
}
