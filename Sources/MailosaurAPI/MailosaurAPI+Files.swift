import HTTP1
import ServerKit

/// The files routes: a message's raw bytes and an attachment's.
extension MailosaurAPI {
    /// `GET api/files/email/{id}`: the message as it was received, `message/rfc822`, inert as every door's received
    /// bytes (``ReceivedBytes``); 404 for one the credential does not see.
    func getRaw(_ call: MailosaurCall) async throws -> HTTPResponse {
        guard let raw = try await mail.raw(in: call.viewer.scope, id: call.parameter("id")) else {
            throw MailosaurRefusal.notFound
        }
        return ReceivedBytes.response(raw, contentType: "message/rfc822", .attachment(filename: nil))
    }

    /// `GET api/files/attachments/{id}` (an ``MailosaurAttachmentID``): the attachment's decoded bytes with its type,
    /// inert as every door's received bytes; 404 for one the credential does not see.
    func getAttachment(_ call: MailosaurCall) async throws -> HTTPResponse {
        guard let id = MailosaurAttachmentID(call.parameter("id")),
            let (part, bytes) = try await mail.attachment(in: call.viewer.scope, id: id.message, position: id.position)
        else { throw MailosaurRefusal.notFound }
        return ReceivedBytes.response(bytes, contentType: part.contentType, .attachment(filename: part.filename))
    }
}
