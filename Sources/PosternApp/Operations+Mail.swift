import Audit
import Foundation
import Logging
import MailDelivery
import MIME
import MailStore
import Storage

extension Operations {
    /// The address the SMTP catch-all's messages are stored under (`postern mail list --catch-all`).
    public static let catchAllAddress = RecipientPolicy.catchAllAddress

    /// `postern mail deliver`: stores the message in `file` (RFC 5322 bytes) for each local address of
    /// `recipients`, as SMTP would; returns the first copy's id. A running server sees it at once on PostgreSQL
    /// (the change's notification wakes its waiters); on SQLite a waiting request looks again within a second.
    /// - Throws: ``ConfigurationError`` naming the recipient that is not a local mailbox, the file that cannot be
    ///   read, or a message the store refuses (too large, unreadable, a full quota).
    public static func deliverMail(
        configuration: PosternConfiguration, recipients: [String], file: String, logger: Logger
    ) async throws -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError(key: "FILE", message: "\(file) cannot be read")
        }
        guard data.count <= configuration.smtp.maxMessageBytes else {
            throw ConfigurationError(
                key: "FILE",
                message: "\(file) is larger than POSTERN_SMTP_MAX_MESSAGE_BYTES (\(configuration.smtp.maxMessageBytes))")
        }
        let database = try migratedDatabase(configuration, logger: logger)
        let mail = Surfaces.localMail(configuration, database: database, clock: { unixNow() })
        for recipient in recipients {
            switch await mail.delivery.verdict(forRecipient: recipient) {
            case .accept: continue
            case .unknownLocal:
                throw ConfigurationError(key: "--to", message: "\(recipient): no such mailbox account or agent here")
            case .relayDenied:
                throw ConfigurationError(
                    key: "--to", message: "\(recipient): not a local domain (agent inbox or mailbox domain)")
            }
        }
        do {
            let id = try await mail.delivery.store(
                MailEnvelope(mailFrom: "", recipients: recipients.map { $0.lowercased() }), data: Array(data))
            recordOperator(
                database, target: "mail deliver",
                details: ["message_id": id, "to": recipients.map { $0.lowercased() }.joined(separator: " ")],
                logger: logger)
            return id
        } catch LocalDeliveryError.stored(.quotaExceeded(let address)) {
            throw ConfigurationError(key: "--to", message: "\(address): the mailbox is full")
        } catch LocalDeliveryError.unreadable(let error) {
            throw ConfigurationError(key: "FILE", message: "\(file) is not a message this server stores: \(error)")
        }
    }

    /// `postern mail outbox`: one line per message submitted for another domain (JMAP), kept and not sent.
    public static func outbox(configuration: PosternConfiguration, logger: Logger) async throws -> [String] {
        let database = try migratedDatabase(configuration, logger: logger)
        return try await MailStore(database: database).outbox().map { entry in
            let created = Date(timeIntervalSince1970: TimeInterval(entry.createdAt)).formatted(.iso8601)
            return "\(entry.id)  from \(entry.sender)  to \(entry.recipients.joined(separator: ","))  "
                + "\(entry.size) bytes  \(created)"
        }
    }

    /// `postern mail list [--address A | --catch-all]`: one line per stored message, newest first, at most `limit`:
    /// its id, when it arrived, the address it is stored under, the sender, the envelope recipients and the subject.
    public static func mailList(
        configuration: PosternConfiguration, address: String?, limit: Int = 50, logger: Logger
    ) async throws -> [String] {
        let database = try migratedDatabase(configuration, logger: logger)
        let found = try await MailStore(database: database).search(MailSearch(address: address), limit: limit)
        return found.map { summary in
            let received = Date(timeIntervalSince1970: TimeInterval(summary.receivedAt)).formatted(.iso8601)
            let sender = summary.from.first?.email ?? (summary.envelopeFrom.isEmpty ? "<>" : summary.envelopeFrom)
            return "\(summary.id)  \(received)  \(summary.address)  from \(sender)  to \(summary.envelopeTo ?? "-")  "
                + (summary.subject ?? "(no subject)")
        }
    }

    /// `postern mail show ID [--raw]`: the message's headers as the store read them and its text body, or with
    /// `raw` its RFC 5322 bytes as received.
    /// - Throws: ``ConfigurationError`` when no address has message `id`.
    public static func mailShow(
        configuration: PosternConfiguration, id: String, raw: Bool = false, logger: Logger
    ) async throws -> String {
        let database = try migratedDatabase(configuration, logger: logger)
        let store = MailStore(database: database)
        let id = id.lowercased()
        guard let address = try await store.address(ofMessage: id),
            let message = try await store.message(address: address, id: id)
        else { throw ConfigurationError(key: "ID", message: "\(id): no such message") }
        if raw {
            return String(decoding: try await store.raw(address: address, id: id) ?? [], as: UTF8.self)
        }
        func list(_ addresses: [MailAddress]) -> String {
            addresses.map { address in
                guard let name = address.name, !name.isEmpty else { return address.email }
                return "\(name) <\(address.email)>"
            }.joined(separator: ", ")
        }
        let summary = message.summary
        var lines = [
            "Id: \(summary.id)", "Stored-Under: \(summary.address)",
            "Received: \(Date(timeIntervalSince1970: TimeInterval(summary.receivedAt)).formatted(.iso8601))",
            "Envelope-From: \(summary.envelopeFrom.isEmpty ? "<>" : summary.envelopeFrom)",
            "Envelope-To: \(summary.envelopeTo ?? "-")", "From: \(list(summary.from))", "To: \(list(message.to))",
        ]
        if !message.cc.isEmpty { lines.append("Cc: \(list(message.cc))") }
        lines.append("Subject: \(summary.subject ?? "")")
        if let sent = message.sentAt {
            lines.append("Date: \(Date(timeIntervalSince1970: TimeInterval(sent)).formatted(.iso8601))")
        }
        if let messageID = message.messageID { lines.append("Message-ID: <\(messageID)>") }
        for attachment in message.attachments {
            lines.append("Attachment: \(attachment.filename ?? "(unnamed)") (\(attachment.contentType), \(attachment.size) bytes)")
        }
        lines.append("")
        lines.append(message.textBody ?? message.htmlBody ?? "")
        return lines.joined(separator: "\n")
    }
}
