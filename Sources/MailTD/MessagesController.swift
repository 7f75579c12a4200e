import MailboxAccounts
import MailboxRoutes
import HTTP1
import JSON
import JWT
import MIME
import MailStore
import ServerKit

/// Mail.td's message endpoints: the mail the local store holds for an account, read with the account's mailbox
/// token or its Pro owner's token. `{id}` is the account's UUID or address; `{messageID}` a message's UUID.
struct MessagesController: MailboxController {
    let surface: MailboxService

    /// Adds the resource's routes to `router`: literal segments (`/read`, `/wait`) before `{messageID}`.
    func register(on router: inout ContextRouter) {
        let limit = MailboxService.bodyLimit
        for prefix in ["/api/accounts/{id}", "/api/user/accounts/{id}"] {
            router.add(.GET, prefix + "/messages", deferred(.general, listMessages))
        }
        let messages = "/api/accounts/{id}/messages"
        router.add(.PUT, messages + "/read", bodyLimit: limit, deferred(.general, markMessagesRead))
        router.add(.GET, messages + "/wait", deferred(.general, waitForMessage))
        router.add(.GET, messages + "/{messageID}", deferred(.general, messageDetail))
        router.add(.DELETE, messages + "/{messageID}", deferred(.general, deleteMessage))
        router.add(.GET, messages + "/{messageID}/source", deferred(.general, messageSource))
        router.add(.PUT, messages + "/{messageID}/read", deferred(.general, markMessageRead))
        router.add(.GET, messages + "/{messageID}/attachments/{index}", deferred(.general, messageAttachment))
    }

    /// `GET /api/accounts/{id}/messages[?page=N]` and the Pro `/api/user/accounts/{id}/messages`: newest first,
    /// `{"messages": [...], "page": N}`.
    func listMessages(_ call: MailboxCall) async throws -> HTTPResponse {
        let account = try await reachableAccount(call)
        let page = try call.integerQuery("page", in: 1...1_000_000, fallback: 1)
        return try await MailboxMessageJSON.page(page, of: account.address, in: mail)
    }

    /// `GET /api/accounts/{id}/messages/wait[?timeout=S]`, for test suites: the oldest unread message as soon as
    /// there is one (at once when one is waiting), or 204 after `timeout` seconds (default 30, at most 30) without
    /// one. Postern's own (not Mail.td's). The request parks on the store's change stream (``MailStore/nextUnread(address:timeout:)``)
    /// and looks again when the account's mail changes, in this instance or (PostgreSQL) another; marking the message
    /// read is the caller's.
    func waitForMessage(_ call: MailboxCall) async throws -> HTTPResponse {
        let account = try await reachableAccount(call)
        let seconds = try call.integerQuery("timeout", in: 0...30, fallback: 30)
        guard let message = try await mail.nextUnread(address: account.address, timeout: .seconds(seconds)) else {
            return MailboxJSON.noContent()
        }
        return MailboxJSON.response(.ok, MailboxMessageJSON.summaryPairs(message))
    }

    /// `GET /api/accounts/{id}/messages/{messageID}`: the message with its bodies and attachment descriptions.
    func messageDetail(_ call: MailboxCall) async throws -> HTTPResponse {
        let account = try await reachableAccount(call)
        guard let message = try await mail.message(address: account.address, id: call.messageID) else {
            throw MailboxError.notFound
        }
        return MailboxJSON.response(.ok, MailboxMessageJSON.detailPairs(message, address: account.address))
    }

    /// `GET .../messages/{messageID}/source`: the raw RFC 5322 bytes as `message/rfc822`.
    func messageSource(_ call: MailboxCall) async throws -> HTTPResponse {
        let account = try await reachableAccount(call)
        guard let raw = try await mail.raw(address: account.address, id: call.messageID) else {
            throw MailboxError.notFound
        }
        return MailboxMessageJSON.download(raw, contentType: "message/rfc822", filename: "\(call.messageID).eml")
    }

    /// `GET .../messages/{messageID}/attachments/{index}`: the decoded bytes of one attachment (zero-based).
    func messageAttachment(_ call: MailboxCall) async throws -> HTTPResponse {
        let account = try await reachableAccount(call)
        guard let index = call.parameters["index"].flatMap({ Int($0) }), index >= 0,
            let (info, data) = try await mail.attachment(address: account.address, id: call.messageID, position: index)
        else { throw MailboxError.notFound }
        return MailboxMessageJSON.download(
            data, contentType: info.contentType, filename: info.filename ?? "attachment-\(index)")
    }

    /// `PUT .../messages/{messageID}/read`: idempotent; 404 when there is no such message.
    func markMessageRead(_ call: MailboxCall) async throws -> HTTPResponse {
        let account = try await reachableAccount(call)
        guard try await mail.exists(address: account.address, id: call.messageID) else { throw MailboxError.notFound }
        _ = try await mail.markRead(address: account.address, ids: [call.messageID])
        return MailboxJSON.response(.ok, [("updated", .int(1))])
    }

    /// `PUT .../messages/read {"ids": [...]} | {"all": true}`: `{"updated": n}`, the messages that were unread.
    func markMessagesRead(_ call: MailboxCall) async throws -> HTTPResponse {
        let account = try await reachableAccount(call)
        let body = try MailboxJSON.object(call.request.body)
        var ids: [String]?
        switch (body["ids"], body["all"]) {
        case (.array(let values)?, nil), (.array(let values)?, .bool(false)?):
            ids = try values.map { value throws(MailboxError) in
                guard case .string(let id) = value else { throw .invalidRequest }
                return id
            }
        case (nil, .bool(true)?): ids = nil
        default: throw MailboxError.invalidRequest
        }
        let updated = try await mail.markRead(address: account.address, ids: ids)
        return MailboxJSON.response(.ok, [("updated", .int(Int64(updated)))])
    }

    /// `DELETE .../messages/{messageID}`: 204, or 404 when there is no such message.
    func deleteMessage(_ call: MailboxCall) async throws -> HTTPResponse {
        let account = try await reachableAccount(call)
        guard try await mail.delete(address: account.address, id: call.messageID) else { throw MailboxError.notFound }
        return MailboxJSON.noContent()
    }

    /// The account `{id}` names, if the bearer reaches it (a mailbox token its own, a Pro bearer those it owns).
    private func reachableAccount(_ call: MailboxCall) async throws -> MailboxAccountRecord {
        let principal = try await authorizer.requirePrincipal(call.bearer)
        return try await authorizer.account(call.id, for: principal)
    }
}
