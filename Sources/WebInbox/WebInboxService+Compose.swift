import HTTP1
import MailStore
import ServerKit
import SMTPOutcomes

/// Owners write as one of their inboxes: a new message or a reply, sent through the ``WebInboxSender`` port (JMAP's
/// `Email/set` and `EmailSubmission/set`), so every rule of sending is the mail API's. Nobody else composes: for a
/// Mail.td account, a Pro user or a one-time link these routes are the same 404 as a mailbox they may not read.
extension WebInboxService {
    /// Adds `GET /inbox/m/{mailbox}/compose` (a new message), `GET /inbox/m/{mailbox}/{id}/reply` (the form filled
    /// for a reply) and `POST /inbox/m/{mailbox}/compose` (sends; 303 to the Sent list with `#notice`, or the form
    /// again with `#error` and what was written). Before the `{id}` routes: `compose` is no message id.
    func registerCompose(into router: inout ContextRouter) {
        router.add(.GET, "/inbox/m/{mailbox}/compose", page { [self] in try await composePage($0, $1, $2) })
        router.add(
            .POST, "/inbox/m/{mailbox}/compose", bodyLimit: configuration.composeBodyLimit,
            contextPage { [self] in try await send($0, $1, $2, $3) })
        router.add(.GET, "/inbox/m/{mailbox}/{id}/reply", page { [self] in try await replyPage($0, $1, $2) })
        router.add(
            .POST, "/inbox/m/{mailbox}/release", bodyLimit: configuration.bodyLimit,
            page { [self] in try await release($0, $1, $2) })
    }

    /// `POST .../release` (`id`, an owner's held message of the mailbox): released through the checks of a new
    /// submission; back to the list, whose notice says whether it left or is still held, and why.
    func release(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? ""
        guard let ownerID = viewer.ownerID, let sender,
            let outcome = try await sender.release(request.formFields()["id"] ?? "", from: mailbox, ownerID: ownerID)
        else { return WebInboxPage.notFound() }
        let code =
            switch outcome {
            case .released: "released"
            case .stillHeld(let reason): "still-held." + reason.code
            case .refused: "release-refused"
            }
        return HTMLPage.redirect(to: WebInboxPage.mailboxPath(mailbox) + "?notice=" + code)
    }

    /// A new message's form. Ids: `form#compose-form` with `to` (`#compose-to`), `subject` (`#compose-subject`) and
    /// `body` (`#compose-body`), `#send`; `#error` after a refused send.
    func composePage(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        guard viewer.ownerID != nil, sender != nil else { return WebInboxPage.notFound() }
        return composeResponse(.ok, request, viewer, WebInboxComposeForm(mailbox: parameters["mailbox"] ?? ""))
    }

    /// The form filled for a reply to message `{id}` of the mailbox.
    func replyPage(_ request: HTTPRequest, _ parameters: RouteParameters, _ viewer: WebInboxViewer) async throws
        -> HTTPResponse
    {
        let mailbox = parameters["mailbox"] ?? ""
        guard viewer.ownerID != nil, sender != nil,
            let record = try await mail.message(address: mailbox, id: parameters["id"] ?? "")
        else { return WebInboxPage.notFound() }
        return composeResponse(.ok, request, viewer, WebInboxComposeForm.reply(to: record, in: mailbox))
    }

    /// Sends what the form holds as the mailbox, threaded under `original` when it names a message of the mailbox.
    func send(
        _ request: HTTPRequest, _ context: RequestContext, _ parameters: RouteParameters, _ viewer: WebInboxViewer
    ) async throws -> HTTPResponse {
        let mailbox = parameters["mailbox"] ?? ""
        guard let ownerID = viewer.ownerID, let sender else { return WebInboxPage.notFound() }
        let fields = request.formFields()
        var form = WebInboxComposeForm(mailbox: mailbox)
        form.to = fields["to"] ?? ""
        form.subject = fields["subject"] ?? ""
        form.body = fields["body"] ?? ""
        form.original = fields["original"] ?? ""
        let to: [String]
        do {
            to = try WebInboxComposeForm.addresses(form.to)
        } catch {
            form.error = WebInboxComposeForm.sentence(error)
            return composeResponse(.unprocessableEntity, request, viewer, form)
        }
        var draft = WebInboxDraft(to: to, subject: form.subject, body: form.body)
        if !form.original.isEmpty {
            guard let original = try await mail.message(address: mailbox, id: form.original) else {
                form.original = ""
                form.error = "The message this replies to was deleted; send again to send it as a new message."
                return composeResponse(.unprocessableEntity, request, viewer, form)
            }
            (draft.inReplyTo, draft.references) = WebInboxComposeForm.thread(of: original)
        }
        guard !draft.to.isEmpty else {
            form.error = WebInboxComposeForm.sentence(WebInboxSendRefusal(.noRecipients))
            return composeResponse(.unprocessableEntity, request, viewer, form)
        }
        do {
            let report = try await sender.send(
                draft, from: mailbox, ownerID: ownerID, client: context.clientKey, requestID: request.requestID)
            return HTMLPage.redirect(
                to: WebInboxPage.mailboxPath(mailbox) + "?folder=sent&notice="
                    + WebInboxComposeForm.noticeCode(report))
        } catch let refusal as WebInboxSendRefusal {
            form.error = WebInboxComposeForm.sentence(refusal)
            return composeResponse(.unprocessableEntity, request, viewer, form)
        }
    }

    private func composeResponse(
        _ status: HTTPStatus, _ request: HTTPRequest, _ viewer: WebInboxViewer, _ form: WebInboxComposeForm
    ) -> HTTPResponse {
        let (csrf, _) = viewer.forms.csrf(for: request)
        return HTMLPage.response(status, form.render(viewer, csrf: csrf))
    }
}
