import Foundation
import Logging
import MailDelivery
import MailStore
import Storage

extension Operations {
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
        guard data.count <= configuration.smtpMaxMessageBytes else {
            throw ConfigurationError(
                key: "FILE", message: "\(file) is larger than POSTERN_SMTP_MAX_MESSAGE_BYTES (\(configuration.smtpMaxMessageBytes))")
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
            return try await mail.delivery.store(
                MailEnvelope(mailFrom: "", recipients: recipients.map { $0.lowercased() }), data: Array(data))
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
}
