import BrowserPages
import MIME
import MailStore
import ServerKit

/// A message's page (ids in ``WebInboxService/message(_:_:_:)``).
struct WebInboxMessagePage {
    var mailbox: String
    var record: MailMessageRecord
    var remoteContent: Bool
    /// A sandbox capture's SPF, DKIM and DMARC verdicts (`#auth-results`); nil for any other message.
    var authResults: WebInboxAuthResults? = nil
    /// The mailbox's folders (decision 35): `#move-form` offers each but the message's own.
    var folders = MailFolderTree(made: [])

    func render(_ viewer: WebInboxViewer, csrf: String) -> HTML {
        let summary = record.summary
        let path = WebInboxPage.messagePath(mailbox, summary.id)
        let subject = summary.subject.flatMap { $0.isEmpty ? nil : $0 } ?? "(no subject)"
        func people(_ list: [MailAddress]) -> HTML {
            HTML.address(list.map(WebInboxPage.person).joined(separator: ", "))
        }
        var headers: HTML = "<dt>From</dt><dd id=\"header-from\">\(people(summary.from))</dd>"
        headers += "<dt>To</dt><dd id=\"header-to\">\(people(record.to))</dd>"
        if !record.cc.isEmpty { headers += "<dt>Cc</dt><dd id=\"header-cc\">\(people(record.cc))</dd>" }
        headers += "<dt>Subject</dt><dd id=\"header-subject\">\(subject)</dd>"
        // A message of Sent or Drafts was written here: it was stored when sent (or saved), never received.
        let when = summary.folder == .sent || summary.folder == .drafts ? "Sent" : "Received"
        headers += "<dt>\(when)</dt><dd id=\"header-time\">\(WebInboxPage.time(summary.receivedAt))</dd>"
        headers += "<dt>Envelope from</dt><dd>\(summary.envelopeFrom)</dd>"
        var parts: HTML = ""
        if let html = record.htmlBody, !html.isEmpty {
            if remoteContent {
                parts += """
                    <p class="flash warning" role="status" id="remote-blocked" data-notice="warning">\
                    Remote content in this message was blocked: nothing was fetched from elsewhere.</p>
                    """
            }
            // No script runs in the frame (its CSP says the same); it keeps its origin so that the web inbox's script
            // (``WebInboxLiveScript``) may read its height and make it as tall as the message.
            parts += """
                <iframe id="html-body" class="html-body" sandbox="allow-same-origin" referrerpolicy="no-referrer" \
                title="The message's HTML part" src="\(path)/html"></iframe>\
                <script src="\(WebInboxLiveScript.path)" defer></script>
                """
        }
        if let text = record.textBody, !text.isEmpty {
            parts += "<h2>Text</h2><pre id=\"text-body\">\(text)</pre>"
        }
        if parts.isEmpty { parts = "<p id=\"no-body\">This message has no text.</p>" }
        // The links the message holds, each once (``MessageLinks``, as the operator API lists them): the sandboxed
        // frame's copy of the HTML part has its links taken out (issue 68), so here they are to open.
        var links: HTML = ""
        let found = MessageLinks.find(text: record.textBody, html: record.htmlBody)
        if !found.isEmpty {
            let items = found.map { link -> HTML in
                "<li><a class=\"message-link\" href=\"\(link)\" rel=\"noopener noreferrer\" target=\"_blank\">\(link)</a></li>"
            }.joined()
            links = "<section class=\"card\"><h2>Links</h2><ul id=\"links\">\(items)</ul></section>"
        }
        var attachments: HTML = ""
        if !record.attachments.isEmpty {
            let items = record.attachments.map { info -> HTML in
                let name = info.filename ?? "attachment-\(info.position)"
                return """
                    <li><a class="attachment-link" id="attachment-\(info.position)" \
                    href="\(path)/attachment/\(info.position)" download>\(name)</a> \
                    <span class="hint">\(info.contentType), \(WebInboxPage.size(info.size))</span></li>
                    """
            }.joined()
            attachments = "<section class=\"card\"><h2>Attachments</h2><ul id=\"attachments\">\(items)</ul></section>"
        }
        let (markID, markLabel) = summary.isRead ? ("mark-unread", "Mark unread") : ("mark-read", "Mark read")
        let field: HTML = "<input type=\"hidden\" name=\"\(BrowserForms.csrfField)\" value=\"\(csrf)\">"
        // The read-only view of all mail (`postern web link --all`) changes nothing: no mark, no delete.
        let changes: HTML =
            viewer.readOnly
            ? ""
            : """
            <form method="post" action="\(path)/read" id="mark-form" class="inline">\(field)
            <input type="hidden" name="seen" value="\(summary.isRead ? "0" : "1")">
            <button type="submit" id="\(markID)">\(markLabel)</button>
            </form>
            <form method="post" action="\(path)/delete" id="delete-form" class="inline">\(field)
            <button type="submit" id="delete" class="danger">Delete</button>
            </form>
            \(moveForm(path, field))
            """
        let actions: HTML = "\(changes)<a id=\"raw-source\" href=\"\(path)/raw\">View source</a>"
        // Owners reply as the inbox (`a#reply`); nobody else may.
        let reply: HTML = viewer.ownerID == nil ? "" : "<a id=\"reply\" href=\"\(path)/reply\">Reply</a> "
        let main: HTML = """
            <p><a id="back" href="\(WebInboxPage.mailboxPath(mailbox))">← \(mailbox)</a></p>
            <article id="message" aria-label="Message">
            <section class="card"><dl class="headers" id="headers">\(headers)</dl><p>\(reply)\(actions)</p></section>
            \(authResults.map(Self.verdicts))
            <section class="card" id="body">\(parts)</section>
            \(links)
            \(attachments)
            </article>
            """
        return WebInboxPage.document(subject, viewer, csrf: csrf, main: main)
    }

    /// `#move-form`: a `select` (`#move-folder`, each option a folder's key, its path shown) of every folder but the
    /// message's own, and `#move`; nothing when there is no other folder.
    private func moveForm(_ path: String, _ field: HTML) -> HTML {
        let options = folders.entries.filter { $0.folder != record.summary.folder }.map { entry -> HTML in
            let name = (folders.path(of: entry.folder) ?? [entry.name]).joined(separator: " / ")
            return "<option value=\"\(entry.folder.rawValue)\">\(name)</option>"
        }
        guard !options.isEmpty else { return "" }
        return """
            <form method="post" action="\(path)/move" id="move-form" class="inline">\(field)
            <label for="move-folder">Move to</label>
            <select id="move-folder" name="folder">\(options.joined())</select>
            <button type="submit" id="move">Move</button>
            </form>

            """
    }

    /// `#auth-results`: each verdict as the sandbox recorded it (`#auth-spf`, `#auth-dkim`, `#auth-dmarc`) with what
    /// it was about, or "not checked" when the sandbox's checks were off.
    static func verdicts(_ results: WebInboxAuthResults) -> HTML {
        func shown(_ result: String, _ about: [String]) -> HTML {
            guard results.checked else { return "not checked" }
            let domains = about.filter { !$0.isEmpty }.joined(separator: ", ")
            return domains.isEmpty ? "\(result)" : "\(result) <span class=\"hint\">(\(domains))</span>"
        }
        return """
            <section class="card" id="auth-results" aria-labelledby="auth-results-title">
            <h2 id="auth-results-title">Sender checks</h2><dl class="headers">
            <dt>SPF</dt><dd id="auth-spf">\(shown(results.spf, [results.spfDomain]))</dd>
            <dt>DKIM</dt><dd id="auth-dkim">\(shown(results.dkim, results.dkimDomains))</dd>
            <dt>DMARC</dt><dd id="auth-dmarc">\(shown(results.dmarc, [results.fromDomain]))</dd>
            </dl></section>
            """
    }
}
