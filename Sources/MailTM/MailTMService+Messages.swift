import HTTP1
import JSON
import MailStore
import MailboxAccounts
import MailboxRoutes

/// Messages: mail.tm's `/messages` and `/sources` over the store's inbox of the bearer's address. Another account's
/// message id is a message this account does not have: 404, whatever the method.
extension MailTMService {
    /// `GET /messages[?page=N]`: the inbox, newest first, 30 a page, with its total and, past one page, its view.
    func messageList(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        let page = try MailTMPage(
            query: call.request.queryItem("page"), size: configuration.itemsPerPage, maximum: configuration.maximumPage)
        let list = try await mail.listPage(
            address: account.address, filter: .inFolder(.inbox), position: page.offset, limit: page.size)
        let records = try await mail.messages(address: account.address, ids: list.rows.map(\.summary.id))
        let members = list.rows.compactMap { row in
            records[row.summary.id].map { MailTMJSON.messageItem($0, accountID: account.id) }
        }
        return Self.answer(
            .ok, MailTMJSON.collection(members, type: "Message", path: "/messages", total: list.total, page: page))
    }

    /// `GET /messages/{id}`: the whole message. Reading it does not mark it seen (a GET changes nothing); `PATCH`
    /// does.
    func messageDetail(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        return Self.answer(.ok, MailTMJSON.message(try await message(call.id, of: account), accountID: account.id))
    }

    /// `PATCH /messages/{id} {"seen": bool}` (a merge patch): the message marked read or unread in the one store (as
    /// Mail.td, JMAP and the operator see it), answered whole. A member other than `seen`, or `seen` not a boolean,
    /// is a 400 and changes nothing.
    func patchMessage(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        let body = try Self.body(call.request)
        guard body.members.keys.allSatisfy({ $0 == "seen" }) else {
            throw MailTMError.badRequest("Extra attributes are not allowed: only \"seen\" can be patched.")
        }
        var seen: Bool?
        switch body["seen"] {
        case nil: seen = nil
        case .bool(let value)?: seen = value
        default: throw MailTMError.badRequest("The type of the \"seen\" attribute must be \"bool\".")
        }
        return try await mark(call.id, of: account, seen: seen)
    }

    /// `PUT /messages/{id}/read`, which mailtmapi 1.1 calls to mark a message read (mail.tm documents `PATCH`): the
    /// same as a patch of `{"seen": true}`.
    func markRead(_ call: Call) async throws -> HTTPResponse {
        try await mark(call.id, of: try await account(call), seen: true)
    }

    private func mark(_ id: String, of account: MailboxAccountSummary, seen: Bool?) async throws -> HTTPResponse {
        guard try await mail.exists(address: account.address, id: id) else { throw MailTMError.notFound }
        if let seen { _ = try await mail.markRead(address: account.address, ids: [id], read: seen) }
        return Self.answer(.ok, MailTMJSON.message(try await message(id, of: account), accountID: account.id))
    }

    /// `DELETE /messages/{id}`: 204, or 404.
    func deleteMessage(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        guard try await mail.delete(address: account.address, id: call.id) else { throw MailTMError.notFound }
        return HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])
    }

    /// `GET /messages/{id}/download` (the message's `downloadUrl`): the raw RFC 5322 bytes.
    func download(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        guard let raw = try await mail.raw(address: account.address, id: call.id) else { throw MailTMError.notFound }
        return MailboxMessageJSON.download(raw, contentType: "message/rfc822", filename: "\(call.id).eml")
    }

    /// `GET /messages/{id}/attachment/{attachment}` (an attachment's `downloadUrl`, `ATTACH000001` the first): the
    /// decoded bytes.
    func attachment(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        guard let position = call.parameters["attachment"].flatMap(MailTMJSON.attachmentPosition),
            let (info, data) = try await mail.attachment(address: account.address, id: call.id, position: position)
        else { throw MailTMError.notFound }
        return MailboxMessageJSON.download(
            data, contentType: info.contentType, filename: info.filename ?? MailTMJSON.attachmentID(position))
    }

    /// `GET /sources/{id}`: the Source resource, the raw message as text.
    func source(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        guard let raw = try await mail.raw(address: account.address, id: call.id) else { throw MailTMError.notFound }
        return Self.answer(.ok, MailTMJSON.source(id: call.id, raw: raw))
    }

    /// Message `id` of `account`'s address; 404 when it has none such.
    private func message(_ id: String, of account: MailboxAccountSummary) async throws -> MailMessageRecord {
        guard let record = try await mail.message(address: account.address, id: id) else { throw MailTMError.notFound }
        return record
    }
}
