import HTTP1
import JSON
import MailStore
import MailboxAccounts
import MailboxRoutes

/// One email by its id: parsed, raw, an attachment, deleted. The id is looked up with the address it is at, which the
/// caller must be able to read; any other is `email_not_found`, as a message that does not exist.
extension MailCXService {
    /// `GET /email/{id}`.
    func email(_ call: Call) async throws -> HTTPResponse {
        let address = try await address(ofEmail: call)
        guard let record = try await mail.message(address: address, id: call.id) else {
            throw MailCXError.emailNotFound
        }
        return HTTPResponse.noStoreJSON(.ok, MailCXJSON.email(record))
    }

    /// `GET /email/{id}/raw`: the RFC 5322 bytes, `message/rfc822`.
    func raw(_ call: Call) async throws -> HTTPResponse {
        let address = try await address(ofEmail: call)
        guard let raw = try await mail.raw(address: address, id: call.id) else { throw MailCXError.emailNotFound }
        return MailboxMessageJSON.download(raw, contentType: "message/rfc822", filename: "\(call.id).eml")
    }

    /// `GET /email/{id}/attachments/{index}` (zero-based): the decoded bytes.
    func attachment(_ call: Call) async throws -> HTTPResponse {
        guard let text = call.parameters["index"], text.utf8.count <= 6, let index = Int(text), index >= 0 else {
            throw MailCXError.invalidIndex
        }
        let address = try await address(ofEmail: call)
        guard let (info, data) = try await mail.attachment(address: address, id: call.id, position: index) else {
            throw MailCXError.attachmentNotFound
        }
        return MailboxMessageJSON.download(data, contentType: info.contentType, filename: info.filename ?? "attachment-\(index)")
    }

    /// `DELETE /email/{id}`: 200 `{"deleted": 1}`.
    func deleteEmail(_ call: Call) async throws -> HTTPResponse {
        let address = try await address(ofEmail: call)
        guard try await mail.delete(address: address, id: call.id) else { throw MailCXError.emailNotFound }
        return HTTPResponse.noStoreJSON(.ok, .object([("deleted", .int(1))]))
    }

    /// The address email `{id}` is at, when the caller may read it; `email_not_found` otherwise.
    private func address(ofEmail call: Call) async throws -> String {
        guard call.id.utf8.count <= 64, let address = try await mail.address(ofMessage: call.id),
            let at = address.lastIndex(of: "@"),
            try await mayRead(address, domain: String(address[address.index(after: at)...]), call.reader)
        else { throw MailCXError.emailNotFound }
        return address
    }
}

extension MailCXService.Call {
    /// The `{id}` of the path.
    var id: String { parameters["id"] ?? "" }
}
