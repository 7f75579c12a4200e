import Base64Coding
import HTTP1
import JSON
import MIME
import MailStore

/// `POST /api/v1/send` (`server/apiv1/send.go`): the message is composed and stored as if it had come over SMTP:
/// for the operator through local delivery (its recipients' verdicts, the catch-all), for a Pro user in their
/// sandbox. Nothing leaves the machine.
extension MailpitAPI {
    /// Mailpit's headers a `Headers` member may not set (`restrictedHeaders`), lower-cased.
    static let restrictedHeaders: Set<String> = [
        "to", "from", "cc", "bcc", "reply-to", "date", "subject", "content-type", "mime-version", "message-id",
    ]

    /// `POST /api/v1/send`: `{"ID": <the stored message's id>}` (for the operator, the first copy's); 400
    /// `{"Error": ...}` for a body Mailpit refuses or a message no recipient of this server takes.
    func send(_ call: MailpitCall) async throws -> HTTPResponse {
        let body: MailpitBody
        do {
            body = try MailpitBody(call.request)
        } catch let refusal as MailpitRefusal {
            throw MailpitRefusal.badSend(String(decoding: refusal.response.body, as: UTF8.self))
        }
        let (raw, from, recipients) = try compose(body)
        let id: String?
        switch call.viewer {
        case .operator:
            do {
                id = try await receiving.receive(raw: raw, mailFrom: from, recipients: recipients).first
            } catch let refused as MailpitReceivingError {
                throw MailpitRefusal.badSend(
                    refused == .noLocalRecipient ? "no recipient is local to this server" : "the message was refused")
            }
        case .sandbox(let sandbox):
            do {
                id = try await sandboxes.capture(raw: raw, mailFrom: from, recipients: recipients, in: sandbox)
            } catch is MailpitReceivingError {
                throw MailpitRefusal.badSend("the message was refused")
            }
        }
        guard let id else { throw MailpitRefusal.badSend("no recipient is local to this server") }
        return Self.json(.object([("ID", .string(id))]))
    }

    /// The message the body describes, its sender and its recipients (To, Cc and Bcc).
    /// - Throws: ``MailpitRefusal`` (the send route's JSON 400) for a member of the wrong type or an invalid value.
    private func compose(_ body: MailpitBody) throws -> ([UInt8], String, [String]) {
        do {
            guard let fromMembers = try body.object("From"), let from = try Self.address(fromMembers, "From") else {
                throw MailpitRefusal.badSend("From is required")
            }
            var message = OutgoingMessage(messageID: MailpitIdentifier.make() + "@mailpit.postern", date: clock())
            message.from = [from]
            message.to = try Self.addresses(body.array("To") ?? [], "To")
            message.cc = try Self.addresses(body.array("Cc") ?? [], "Cc")
            message.replyTo = try Self.addresses(body.array("ReplyTo") ?? [], "Reply-To")
            message.bcc = try body.strings("Bcc").map { MailAddress(email: $0) }
            message.subject = try body.string("Subject")
            message.textBody = try body.string("Text") ?? ""
            message.htmlBody = try body.string("HTML").flatMap { $0.isEmpty ? nil : $0 }
            message.attachments = try (body.array("Attachments") ?? []).map(Self.attachment)
            var head: [String] = []
            let tags = try body.strings("Tags")
            if !tags.isEmpty {
                head.append("X-Tags: " + tags.map(MailTag.clean).filter { !$0.isEmpty }.joined(separator: ", "))
            }
            for (name, value) in try body.object("Headers") ?? [] {
                guard !Self.restrictedHeaders.contains(name.lowercased()),
                    !(name.lowercased() == "x-tags" && !tags.isEmpty)
                else { throw MailpitRefusal.badSend("cannot overwrite header: \"\(name)\"") }
                guard case .string(let text) = value, Self.isFieldName(name), Self.isFieldValue(text) else {
                    throw MailpitRefusal.badSend("invalid header: \"\(name)\"")
                }
                head.append(name + ": " + text)
            }
            let composed: [UInt8]
            do {
                composed = try MIMEComposer.compose(message)
            } catch {
                throw MailpitRefusal.badSend("invalid \(error.field) address or value")
            }
            let raw = Array(head.map { $0 + "\r\n" }.joined().utf8) + composed
            let recipients = (message.to + message.cc + message.bcc).map(\.email)
            return (raw, from.email, recipients)
        } catch let refusal as MailpitRefusal where refusal.response.headers["Content-Type"]?.hasPrefix("text/") == true
        {
            throw MailpitRefusal.badSend(String(decoding: refusal.response.body, as: UTF8.self))
        }
    }

    /// `{"Email", "Name"}` as an address; nil for an object without `Email`.
    private static func address(_ members: [(String, JSONValue)], _ field: String) throws -> MailAddress? {
        func member(_ name: String) -> JSONValue? { members.first { $0.0.lowercased() == name.lowercased() }?.1 }
        guard case .string(let email)? = member("Email"), email.contains("@") else {
            throw MailpitRefusal.badSend("invalid \(field) address")
        }
        var name: String?
        if case .string(let text)? = member("Name"), !text.isEmpty { name = text }
        return MailAddress(name: name, email: email)
    }

    private static func addresses(_ elements: [JSONValue], _ field: String) throws -> [MailAddress] {
        try elements.compactMap { element in
            guard case .object(let members) = element else { throw MailpitRefusal.badSend("invalid \(field) address") }
            return try address(members, field)
        }
    }

    /// One of `Attachments`: `Content` (base64, after any `data:...,` prefix), `Filename`, `ContentType` (default
    /// `application/octet-stream`), `ContentID` (inline when set).
    private static func attachment(_ element: JSONValue) throws -> MailAttachment {
        guard case .object(let members) = element else { throw MailpitRefusal.badSend("invalid attachment") }
        func text(_ name: String) -> String? {
            if case .string(let value)? = members.first(where: { $0.0.lowercased() == name.lowercased() })?.1 {
                return value
            }
            return nil
        }
        guard let filename = text("Filename"), let content = text("Content") else {
            throw MailpitRefusal.badSend("an attachment needs Content and Filename")
        }
        guard let data = Base64.decode(String(content.split(separator: ",").last ?? "")) else {
            throw MailpitRefusal.badSend("error decoding base64 attachment \"\(filename)\"")
        }
        let contentID = text("ContentID").flatMap { $0.isEmpty ? nil : $0 }
        let type = text("ContentType").flatMap { $0.isEmpty ? nil : $0.lowercased() } ?? "application/octet-stream"
        return MailAttachment(
            filename: filename, contentType: type, contentID: contentID,
            disposition: contentID == nil ? "attachment" : "inline", data: data)
    }

    /// A header field name: printable ASCII without a colon or space (RFC 5322 section 2.2).
    static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 76
            && name.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }
    }

    /// A header field value written as it is: printable ASCII and tabs, at most 900 bytes, no line break.
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.count <= 900 && value.utf8.allSatisfy { ($0 >= 32 && $0 < 127) || $0 == 9 }
    }
}

/// A fresh random identifier for a composed message's `Message-ID`.
enum MailpitIdentifier {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 36) }.joined()
    }
}
