import HTTP1
import JSON
import MIME
import MailStore
import ServerKit

/// One message's routes (`server/apiv1/message.go`): the message, its headers, raw source and parts.
extension MailpitAPI {
    /// `GET /api/v1/message/{ID}`: Mailpit's `Message`; the message is marked read, as Mailpit marks it on open.
    func getMessage(_ call: MailpitCall) async throws -> HTTPResponse {
        let id = try await messageID(call)
        guard var record = try await mail.record(in: call.scope, id: id) else { throw MailpitRefusal.notFound }
        if !record.summary.isRead {
            _ = try await mail.mark(MailSelection(call.scope, .ids([id])), read: true)
            record.summary.isRead = true
        }
        return Self.json(MailpitJSON.message(record))
    }

    /// `GET /api/v1/message/{ID}/headers`: every header field of the message, by canonical name, with what Mailpit
    /// writes into a message it stores (``MailpitJSON/headers(_:of:)``).
    func getHeaders(_ call: MailpitCall) async throws -> HTTPResponse {
        let raw = try await rawMessage(call)
        guard let record = try await mail.record(in: call.scope, id: try await messageID(call)) else {
            throw MailpitRefusal.notFound
        }
        let parsed: ParsedMessage
        do {
            parsed = try MIMEParser.parse(raw, limits: MIMELimits(maximumMessageBytes: max(raw.count, 1)))
        } catch {
            throw MailpitRefusal.badRequest("malformed MIME header")
        }
        return Self.json(MailpitJSON.headers(parsed.headers, of: record))
    }

    /// `GET /api/v1/message/{ID}/raw[?dl=1]`: the stored bytes as `text/plain`, shown as text (a download with
    /// `dl=1`), inert as every door's received bytes (``ReceivedBytes``: `nosniff`, the sandbox policy).
    func getRaw(_ call: MailpitCall) async throws -> HTTPResponse {
        let raw = try await rawMessage(call)
        guard call.request.queryItem("dl") == "1" else {
            return ReceivedBytes.response(raw, contentType: "text/plain", .sourceText)
        }
        return ReceivedBytes.response(
            raw, contentType: "text/plain; charset=utf-8", .attachment(filename: "\(try await messageID(call)).eml"))
    }

    /// `GET /api/v1/message/{ID}/part/{PartID}`: the decoded bytes of the part, with the sender's content type, under
    /// the rule of received bytes (``ReceivedBytes``, issue 81 item 6): `inline` (as Mailpit serves it) only for a
    /// raster image, any other type (HTML, SVG) `attachment`; `nosniff` and a sandbox policy that runs nothing.
    func getPart(_ call: MailpitCall) async throws -> HTTPResponse {
        let id = try await messageID(call)
        guard let position = MailpitJSON.position(ofPart: call.parameter("part")),
            let (info, data) = try await mail.attachment(in: call.scope, id: id, position: position)
        else { throw MailpitRefusal.notFound }
        return ReceivedBytes.response(
            data, contentType: info.contentType, .inline(filename: info.filename ?? info.contentID))
    }

    /// `GET /api/v1/message/{ID}/part/{PartID}/thumb`: Postern makes no images, so every thumbnail is a 400 (Mailpit
    /// answers 400 for a part it cannot read).
    func getThumbnail(_ call: MailpitCall) async throws -> HTTPResponse {
        throw MailpitRefusal.badRequest("thumbnails are not available on this server")
    }

    /// The message id of the path: the `ID` itself, or the newest message's for `latest`.
    func messageID(_ call: MailpitCall) async throws -> String {
        let id = call.parameter("id")
        guard id == "latest" else { return id }
        guard let newest = try await mail.list(MailSelection(call.scope, limit: 1)).first
        else { throw MailpitRefusal(response: Self.text(.notFound, "message not found")) }
        return newest.id
    }

    /// The raw bytes of the path's message; 404 when the scope has none such.
    func rawMessage(_ call: MailpitCall) async throws -> [UInt8] {
        guard let raw = try await mail.raw(in: call.scope, id: try await messageID(call)) else {
            throw MailpitRefusal.notFound
        }
        return raw
    }
}
