import MailboxAccounts
import MailboxRoutes
import HTTP1
import JSON
import MIME
import MailStore

/// One stored message on the operator's surface (Mailpit's API v1 for a test suite): the whole message, its raw
/// bytes, one attachment, read or unread, deletion. `{messageID}` is the id the list and `/wait` give, in whatever
/// address the message is stored under; an id no address has is 404 `{"error":"not_found"}`.
extension OperatorController {
    /// `GET /api/operator/messages/{messageID}`: Mail.td's message object (``MailboxMessageJSON/detailPairs``) and
    /// what a suite reads besides: the envelope, `bcc`, `reply_to`, the `Date` header as `date`, every top-level
    /// header field in order (encoded words decoded), the links of the text and HTML parts (``MessageLinks``), and
    /// the codes and links with their kinds found at delivery (``extractionPairs(_:)``).
    /// Reading does not mark the message read.
    func messageDetail(_ call: MailboxCall) async throws -> HTTPResponse {
        let address = try await storedAddress(call)
        guard let message = try await mail.message(address: address, id: call.messageID),
            let raw = try await mail.raw(address: address, id: call.messageID)
        else { throw MailboxError.notFound }
        // The parser that stored the message reads its header again (lenient, as received mail needs: the strict
        // HeaderSection is for what is sent); its size passed the delivery's limit, which may exceed the default.
        let parsed = try? MIMEParser.parse(raw, limits: MIMELimits(maximumMessageBytes: max(raw.count, 1)))
        let headers = parsed?.headers ?? []
        let pairs: [(String, JSONValue)] = [
            ("envelope_from", .string(message.summary.envelopeFrom)),
            ("envelope_to", .array(message.summary.envelopeTo.map(JSONValue.string))),
            ("bcc", MailboxMessageJSON.addressList(message.bcc)),
            ("reply_to", MailboxMessageJSON.addressList(message.replyTo)),
            ("date", MailboxJSON.time(message.sentAt)),
            ("headers", .array(headers.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })),
            ("links", .array(MessageLinks.find(text: message.textBody, html: message.htmlBody).map(JSONValue.string))),
        ] + Self.extractionPairs(try await mail.extraction(address: address, id: call.messageID))
        return MailboxJSON.response(.ok, MailboxMessageJSON.detailPairs(message, address: address) + pairs)
    }

    /// `GET /api/operator/messages/{messageID}/raw`: the stored RFC 5322 bytes as `message/rfc822`.
    func rawMessage(_ call: MailboxCall) async throws -> HTTPResponse {
        let address = try await storedAddress(call)
        guard let raw = try await mail.raw(address: address, id: call.messageID) else { throw MailboxError.notFound }
        return MailboxMessageJSON.download(raw, contentType: "message/rfc822", filename: "\(call.messageID).eml")
    }

    /// `GET /api/operator/messages/{messageID}/attachments/{index}`: the decoded bytes of attachment `index` (the
    /// zero-based `index` of the message's `attachments`) with its content type; 404 for an index it does not have.
    func attachment(_ call: MailboxCall) async throws -> HTTPResponse {
        let address = try await storedAddress(call)
        guard let index = call.parameters["index"].flatMap({ Int($0) }), index >= 0,
            let (info, data) = try await mail.attachment(address: address, id: call.messageID, position: index)
        else { throw MailboxError.notFound }
        return MailboxMessageJSON.download(
            data, contentType: info.contentType, filename: info.filename ?? "attachment-\(index)")
    }

    /// `PUT /api/operator/messages/{messageID}` `{"read": true|false}`: marks the message read or unread (its
    /// address's JMAP `$seen` with it) and answers its list object; 400 for any other body.
    func markMessage(_ call: MailboxCall) async throws -> HTTPResponse {
        let body = try MailboxJSON.object(call.request.body)
        guard case .bool(let read)? = body["read"] else { throw MailboxError.invalidRequest }
        let address = try await storedAddress(call)
        _ = try await mail.markRead(address: address, ids: [call.messageID], read: read)
        guard let message = try await mail.message(address: address, id: call.messageID) else {
            throw MailboxError.notFound
        }
        return MailboxJSON.response(.ok, try await Self.operatorMessage(message.summary, in: mail))
    }

    /// `DELETE /api/operator/messages/{messageID}`: 204; the message, its attachments and what the sandbox kept of
    /// it are gone, and its address's JMAP state moves.
    func deleteMessage(_ call: MailboxCall) async throws -> HTTPResponse {
        let address = try await storedAddress(call)
        guard try await mail.delete(address: address, id: call.messageID) else { throw MailboxError.notFound }
        return MailboxJSON.noContent()
    }

    /// The address message `{messageID}` is stored under, or 404.
    private func storedAddress(_ call: MailboxCall) async throws -> String {
        guard let address = try await mail.address(ofMessage: call.messageID) else { throw MailboxError.notFound }
        return address
    }
}
