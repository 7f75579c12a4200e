import HTTP1
import MIME
import MailStore
import ServerKit

/// The mailbox pages: the list, a message and its parts, and the two actions. Each handler runs after ``page(_:)``
/// checked the session, the CSRF token of a post and that the viewer may read `{mailbox}`; a message is looked up in
/// that mailbox only, so another mailbox's message id is a 404 like one that never was.
extension WebInboxService {
    /// The list: the JMAP query (filter, newest first, from `position`) and the summaries of that page's ids, what
    /// `Email/query` and `Email/get` read, in one read of the store (``MailStore/listPage(address:filter:position:limit:)``). Ids: `#search-form` (`#search-text`, `#search-from`,
    /// `#search-subject`), `#messages` (rows `tr.message`, `tr.unread`; `a.message-link`), `#older`, `#newer`,
    /// `#empty`.
    func list(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? ""
        let search = WebInboxSearch(request)
        let size = configuration.pageSize
        let position = max(0, Int(request.queryItem("position") ?? "") ?? 0)
        // One snapshot: the state is the list's own, so the live stream refreshes it on any later change.
        let page = try await mail.listPage(address: mailbox, filter: search.filter, position: position, limit: size)
        let (csrf, _) = viewer.forms.csrf(for: request)
        var held: [WebInboxHeldMessage] = []
        if let ownerID = viewer.ownerID, let sender { held = try await sender.held(from: mailbox, ownerID: ownerID) }
        let html = WebInboxListPage(
            mailbox: mailbox, search: search, messages: page.rows, position: position, pageSize: size,
            total: page.total, notice: WebInboxComposeForm.notice(request.queryItem("notice")), state: page.state,
            held: held, folders: try await mail.folders(address: mailbox)
        ).render(viewer, csrf: csrf)
        // The list alone runs a script, this origin's only, which opens this origin's event stream only.
        return HTMLPage.response(.ok, html, policy: .script(.self))
    }

    /// A message, marked read as it is opened, unless another site sent the browser here (`Sec-Fetch-Site:
    /// cross-site`): an owner's cookie is `SameSite=Lax`, so a link elsewhere could otherwise mark their mail read.
    /// Ids: `#headers`, `#text-body`, `#html-body` (an `iframe` with
    /// `sandbox=""`), `#remote-blocked`, `#attachments` (`a.attachment-link`), `#raw-source`, `#mark-form`
    /// (`#mark-unread` / `#mark-read`), `#delete-form` (`#delete`), `#back`; an owner's `a#reply`; a Pro user's
    /// sandbox capture's `#auth-results`.
    func message(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? "", id = parameters["id"] ?? ""
        guard var record = try await mail.message(address: mailbox, id: id) else { return WebInboxPage.notFound() }
        if !record.summary.isRead, !viewer.readOnly, request.headers["Sec-Fetch-Site"]?.lowercased() != "cross-site" {
            var keywords = record.summary.allKeywords
            keywords.insert("$seen")
            _ = try await mail.update(address: mailbox, id: id, keywords: keywords, folder: record.summary.folder)
            record.summary.isRead = true
        }
        let remote = record.htmlBody.map { InboxHTML($0, cidPrefix: "").remoteContent } ?? false
        var verdicts: WebInboxAuthResults?
        if case .session(.proUser(let user)) = viewer.kind, let captures {
            verdicts = try await captures.authResults(proUserID: user, messageID: id)
        }
        let (csrf, _) = viewer.forms.csrf(for: request)
        let html = WebInboxMessagePage(
            mailbox: mailbox, record: record, remoteContent: remote, authResults: verdicts,
            folders: try await mail.folders(address: mailbox)
        ).render(viewer, csrf: csrf)
        // The HTML part's frame, and (only when there is one) this origin's script that sizes it to the message.
        let framed = !(record.htmlBody ?? "").isEmpty
        return HTMLPage.response(.ok, html, policy: framed ? .frame(.self).scripts(from: .self) : .frame(.self))
    }

    /// The HTML part, for the message page's frame only: a CSP of its own (nothing but inline style and this
    /// message's inline images; sandboxed even when opened alone), `cid:` pointed at the signed image route.
    func htmlPart(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? "", id = parameters["id"] ?? ""
        guard let record = try await mail.message(address: mailbox, id: id), let body = record.htmlBody else {
            return WebInboxPage.notFound()
        }
        let signature = images.sign(mailbox: mailbox, id: id, expires: clock() + configuration.inlineImageLifetime)
        let imageRoute = WebInboxPage.messagePath(mailbox, id) + "/cid/"
        let part = InboxHTML(body, cidPrefix: imageRoute + signature + "/")
        var response = HTTPResponse.html(.ok, part.html)
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        response.setPolicy(.framedDocument(images: .url(configuration.baseURL + imageRoute)))
        response.headers.replaceOrAdd("X-Content-Type-Options", "nosniff")
        response.headers.replaceOrAdd("Referrer-Policy", "no-referrer")
        return response
    }

    /// The message as received, as plain text.
    func rawSource(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? "", id = parameters["id"] ?? ""
        guard let raw = try await mail.raw(address: mailbox, id: id) else { return WebInboxPage.notFound() }
        return ReceivedBytes.response(raw, contentType: "text/plain", .sourceText)
    }

    /// An attachment, to download: always `application/octet-stream` and `attachment`, so nothing it holds runs here.
    func attachment(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? "", id = parameters["id"] ?? ""
        guard let position = Int(parameters["position"] ?? ""),
            let (info, data) = try await mail.attachment(address: mailbox, id: id, position: position)
        else { return WebInboxPage.notFound() }
        let name = Self.safeFilename(info.filename ?? "attachment-\(position)")
        return ReceivedBytes.response(data, contentType: "application/octet-stream", .attachment(filename: name))
    }

    /// An inline image of an HTML part, by its signed URL (the sandboxed frame sends no cookie): raster types only.
    func inlineImage(_ parameters: RouteParameters) async throws -> HTTPResponse {
        let mailbox = parameters["mailbox"] ?? "", id = parameters["id"] ?? "", cid = parameters["cid"] ?? ""
        guard images.verify(parameters["signature"] ?? "", mailbox: mailbox, id: id, now: clock()),
            let record = try await mail.message(address: mailbox, id: id),
            let info = record.attachments.first(where: { Self.contentID($0.contentID) == Self.contentID(cid) }),
            Self.inlineTypes.contains(info.contentType.lowercased()),
            let (_, data) = try await mail.attachment(address: mailbox, id: id, position: info.position)
        else { return WebInboxPage.notFound() }
        return ReceivedBytes.response(data, contentType: info.contentType.lowercased(), .inline(filename: nil))
    }

    /// `POST .../read` with `seen` `1` (read) or `0` (unread); back to the message.
    func mark(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? "", id = parameters["id"] ?? ""
        guard let record = try await mail.message(address: mailbox, id: id) else { return WebInboxPage.notFound() }
        var keywords = record.summary.allKeywords
        if request.formFields()["seen"] == "0" { keywords.remove("$seen") } else { keywords.insert("$seen") }
        _ = try await mail.update(address: mailbox, id: id, keywords: keywords, folder: record.summary.folder)
        // Back to the list: the message page would mark it read again.
        return HTMLPage.redirect(to: WebInboxPage.mailboxPath(mailbox))
    }

    /// `POST .../delete`: the message goes; back to the list.
    func delete(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? "", id = parameters["id"] ?? ""
        guard try await mail.delete(address: mailbox, id: id) else { return WebInboxPage.notFound() }
        return HTMLPage.redirect(to: WebInboxPage.mailboxPath(mailbox))
    }

    /// `POST .../move` with `folder` (a folder's key): the message moves there by the store's move, IMAP `MOVE`'s;
    /// back to the list of the folder it left. A folder the mailbox lacks (deleted meanwhile, or never) is a 400 page.
    func move(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? "", id = parameters["id"] ?? ""
        guard let record = try await mail.message(address: mailbox, id: id) else { return WebInboxPage.notFound() }
        let noSuchFolder = WebInboxPage.message(.badRequest, "No such folder", "This mailbox has no such folder.")
        guard let folder = request.formFields()["folder"].flatMap(MailFolder.init(rawValue:)) else {
            return noSuchFolder
        }
        do {
            _ = try await mail.move(address: mailbox, ids: [id], to: folder)
        } catch MailFolderError.noSuchFolder {
            return noSuchFolder
        }
        return HTMLPage.redirect(
            to: WebInboxPage.mailboxPath(mailbox) + "?folder=" + PercentEncoding.encode(record.summary.folder.rawValue))
    }

    /// Image types an HTML part may show inline (no SVG, which can carry script).
    static let inlineTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

    /// A `Content-ID` without its angle brackets, lower-cased.
    static func contentID(_ text: String?) -> String {
        var id = Substring(text ?? "")
        if id.hasPrefix("<") { id = id.dropFirst() }
        if id.hasSuffix(">") { id = id.dropLast() }
        return id.lowercased()
    }

    /// A filename for `Content-Disposition`: printable ASCII but `"` and `\`, at most 100 characters.
    static func safeFilename(_ name: String) -> String {
        let kept = name.unicodeScalars.map { scalar -> Character in
            scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\" && scalar != "/"
                ? Character(scalar) : "_"
        }
        let text = String(kept.prefix(100))
        return text.isEmpty ? "attachment" : text
    }
}
