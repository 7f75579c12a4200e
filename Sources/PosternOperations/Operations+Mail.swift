import Audit
import EmailAddresses
import Foundation
import Logging
import MailDelivery
import MIME
import MailStore
import OutboundQueue
import PosternApp
import Storage
import Time

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
        let (database, mail) = try commandMail(configuration, logger: logger)
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
                MailEnvelope(mailFrom: "", recipients: recipients.map { EmailAddress.key($0) }), data: Array(data))
            recordOperator(
                database, target: "mail deliver",
                details: ["message_id": id, "to": recipients.map { EmailAddress.key($0) }.joined(separator: " ")],
                logger: logger)
            return id
        } catch LocalDeliveryError.stored(.quotaExceeded(let address)) {
            throw ConfigurationError(key: "--to", message: "\(address): the mailbox is full")
        } catch LocalDeliveryError.unreadable(let error) {
            throw ConfigurationError(key: "FILE", message: "\(file) is not a message this server stores: \(error)")
        }
    }

    /// What `postern mail queue` does.
    public enum QueueAction: Sendable, Equatable {
        /// One line per waiting message, then one per waiting recipient (Postfix's `postqueue -p`).
        case list
        /// Makes message ID's waiting recipients due now (`postqueue -f` for one message).
        case retry(String)
        /// Makes every waiting recipient due now (`postqueue -f`).
        case retryAll
        /// Deletes the waiting recipients of a selection from the queue (`postsuper -d`): one message, a sender's, an
        /// owner's (`--holder OWNER_ID`), a destination domain's, or all.
        case delete(QueueSelection)
    }

    /// `postern mail queue`: lists the outbound queue, makes messages due now, or deletes a selection, saying how many
    /// recipients it removed; returns the lines to print. A running server's dispatcher sees a retry at its next look
    /// at the queue (within seconds). A holder is an owner's id, as `postern owner list` prints it.
    /// - Throws: ``ConfigurationError`` naming the message id no waiting message has (`--retry`, `--delete`).
    public static func queue(configuration: PosternConfiguration, _ action: QueueAction, logger: Logger) async throws
        -> [String]
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let queue = OutboundQueue(database: database, configuration: configuration.outboundQueue)
        let now = unixNow()
        switch action {
        case .list:
            let messages = try await queue.list()
            guard !messages.isEmpty else { return ["The outbound queue is empty."] }
            var lines: [String] = []
            for message in messages {
                let queued = RFC3339.format(message.sendAt)
                lines.append("\(message.id)  from \(message.sender)  \(message.size) bytes  queued \(queued)")
                for recipient in message.recipients {
                    let next = RFC3339.format(recipient.nextAttempt)
                    lines.append(
                        "    \(recipient.address)  attempts \(recipient.attempts)  next \(next)  \(recipient.smtpReply)")
                }
            }
            return lines
        case .retry(let id), .delete(.message(let id)):
            let count =
                if case .retry = action {
                    try await queue.retryNow(id: id, now: now)
                } else {
                    try await queue.delete(.message(id), now: now)
                }
            guard count > 0 else {
                throw ConfigurationError(
                    key: action == .retry(id) ? "--retry" : "--delete", message: "\(id): no message waits in the queue")
            }
            let verb = action == .retry(id) ? "mail queue retry" : "mail queue delete"
            recordOperator(database, target: verb, details: ["message_id": id, "recipients": String(count)], logger: logger)
            return [action == .retry(id) ? "\(id): \(count) recipients due now" : "\(id): \(count) recipients deleted"]
        case .delete(let selection):
            let count = try await queue.delete(selection, now: now)
            let (key, value) = Self.auditDetail(selection)
            recordOperator(
                database, target: "mail queue delete", details: [key: value, "recipients": String(count)],
                logger: logger)
            return ["\(count) recipients deleted"]
        case .retryAll:
            let count = try await queue.retryNow(id: nil, now: now)
            recordOperator(database, target: "mail queue retry", details: ["recipients": String(count)], logger: logger)
            return ["\(count) recipients due now"]
        }
    }

    /// What the audit trail records of a delete's selection: its kind and value.
    static func auditDetail(_ selection: QueueSelection) -> (String, String) {
        switch selection {
        case .message(let id): ("message_id", id)
        case .sender(let sender): ("sender", sender)
        case .holder(.owner(let owner)): ("owner_id", owner)
        case .domain(let domain): ("domain", domain)
        case .all: ("all", "true")
        }
    }

    /// `postern mail tls-reset DOMAIN`: forgets that `domain` took mail over TLS, so that its next failed STARTTLS
    /// handshake may be retried in the clear; returns the line to print.
    public static func tlsReset(configuration: PosternConfiguration, domain: String, logger: Logger) async throws
        -> String
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let queue = OutboundQueue(database: database, configuration: configuration.outboundQueue)
        let name = domain.lowercased()
        let known = try await queue.forgetDeliveryOverTLS(name)
        recordOperator(database, target: "mail tls-reset", details: ["domain": name], logger: logger)
        return known
            ? "\(name): forgotten; a failed STARTTLS may be retried in the clear"
            : "\(name): no delivery over TLS was on record"
    }

    /// `postern mail list [--address A | --catch-all]`: one line per stored message, newest first, at most `limit`:
    /// its id, when it arrived, the address it is stored under, its folder (inbox, drafts, sent), the sender, the
    /// recipients (the SMTP envelope's when one brought it, else the header's To and Cc: what a mailbox wrote or sent)
    /// and the subject.
    public static func mailList(
        configuration: PosternConfiguration, address: String?, limit: Int = 50, logger: Logger
    ) async throws -> [String] {
        let database = try migratedDatabase(configuration, logger: logger)
        let store = MailStore(database: database)
        let found = try await store.search(MailSearch(address: address), limit: limit)
        var written: [String: MailMessageRecord] = [:]
        let unenveloped = Dictionary(grouping: found.filter { $0.envelopeTo.isEmpty }, by: \.address)
        for (mailbox, summaries) in unenveloped {
            written.merge(try await store.messages(address: mailbox, ids: summaries.map(\.id))) { first, _ in first }
        }
        return found.map { summary in
            let received = RFC3339.format(summary.receivedAt)
            let sender = summary.from.first?.email ?? (summary.envelopeFrom.isEmpty ? "<>" : summary.envelopeFrom)
            let headerRecipients = written[summary.id].map { ($0.to + $0.cc).map(\.email).joined(separator: ", ") }
            let enveloped = summary.envelopeTo.isEmpty ? nil : summary.envelopeTo.joined(separator: ", ")
            let recipients = enveloped ?? headerRecipients.flatMap { $0.isEmpty ? nil : $0 } ?? "-"
            return "\(summary.id)  \(received)  \(summary.address)  \(summary.folder.rawValue)  from \(sender)  "
                + "to \(recipients)  " + (summary.subject ?? "(no subject)")
        }
    }

    /// `postern mail show ID --raw`: the message's RFC 5322 bytes as received.
    /// - Throws: ``ConfigurationError`` when no address has message `id`.
    public static func mailRaw(configuration: PosternConfiguration, id: String, logger: Logger) async throws -> [UInt8] {
        let database = try migratedDatabase(configuration, logger: logger)
        let store = MailStore(database: database)
        let id = id.lowercased()
        guard let address = try await store.address(ofMessage: id), let raw = try await store.raw(address: address, id: id)
        else { throw ConfigurationError(key: "ID", message: "\(id): no such message") }
        return raw
    }

    /// `postern mail show ID`: the message's headers as the store read them, one a line, an empty line and its text
    /// body's lines (a stored field stays on its line: the command line's writer escapes a line feed in it).
    /// - Throws: ``ConfigurationError`` when no address has message `id`.
    public static func mailShow(configuration: PosternConfiguration, id: String, logger: Logger) async throws -> [String] {
        let database = try migratedDatabase(configuration, logger: logger)
        let store = MailStore(database: database)
        let id = id.lowercased()
        guard let address = try await store.address(ofMessage: id),
            let message = try await store.message(address: address, id: id)
        else { throw ConfigurationError(key: "ID", message: "\(id): no such message") }
        func list(_ addresses: [MailAddress]) -> String {
            addresses.map { address in
                guard let name = address.name, !name.isEmpty else { return address.email }
                return "\(name) <\(address.email)>"
            }.joined(separator: ", ")
        }
        let summary = message.summary
        var lines = [
            "Id: \(summary.id)", "Stored-Under: \(summary.address)",
            "Received: \(RFC3339.format(summary.receivedAt))",
            "Envelope-From: \(summary.envelopeFrom.isEmpty ? "<>" : summary.envelopeFrom)",
            "Envelope-To: \(summary.envelopeTo.isEmpty ? "-" : summary.envelopeTo.joined(separator: ", "))", "From: \(list(summary.from))", "To: \(list(message.to))",
        ]
        if !message.cc.isEmpty { lines.append("Cc: \(list(message.cc))") }
        lines.append("Subject: \(summary.subject ?? "")")
        if let sent = message.sentAt {
            lines.append("Date: \(RFC3339.format(sent))")
        }
        if let messageID = message.messageID { lines.append("Message-ID: <\(messageID)>") }
        for attachment in message.attachments {
            lines.append("Attachment: \(attachment.filename ?? "(unnamed)") (\(attachment.contentType), \(attachment.size) bytes)")
        }
        lines.append("")
        let body = message.textBody ?? message.htmlBody ?? ""
        return lines + body.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.hasSuffix("\r") ? line.dropLast() : line)
        }
    }
}
