import MIME
import MailStore
import SMTPServer

/// Delivers mail addressed to local mailboxes into the mail store: the SMTP listener's sink and the path of
/// `postern mail deliver`. Each message is parsed once (``MIMEParser``) and stored once per local recipient, in
/// one transaction; the queue id it answers with is the first copy's id.
public struct LocalDelivery: SMTPMailSink {
    let mailboxes: LocalMailboxes
    let store: MailStore
    let limits: MIMELimits
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - mailboxes: which addresses are local, and their quotas.
    ///   - store: where copies go.
    ///   - maximumMessageBytes: the largest message the MIME parser takes (SMTP's own limit); its other limits
    ///     are ``MIMELimits``' defaults.
    ///   - clock: Unix seconds, the copies' `received_at`.
    public init(
        mailboxes: LocalMailboxes, store: MailStore, maximumMessageBytes: Int = MIMELimits.default.maximumMessageBytes,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.mailboxes = mailboxes
        self.store = store
        self.limits = MIMELimits(maximumMessageBytes: maximumMessageBytes)
        self.clock = clock
    }

    /// Local and existing: accept; local domain without such a mailbox: 550 5.1.1; any other domain: 550 5.7.1
    /// (no relay). When the store cannot be read, the recipient is accepted and the delivery fails with a
    /// temporary error instead of a permanent refusal.
    public func verdict(forRecipient address: String) async -> SMTPRecipientVerdict {
        do {
            switch try await mailboxes.resolve(address) {
            case .local: return .accept
            case .unknown: return .unknownLocal
            case .foreign: return .relayDenied
            }
        } catch {
            return mailboxes.isLocal(domain: Self.domain(of: address)) ? .accept : .relayDenied
        }
    }

    /// Parses `data` and stores a copy for every local recipient of `envelope`.
    /// - Throws: ``LocalDeliveryError`` when no recipient is local any more, a MIME limit is passed or a quota
    ///   is full; storage errors as they are. Nothing is stored when it throws.
    public func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        var recipients: [MailStore.Recipient] = []
        for address in envelope.recipients {
            if case .local(let recipient) = try await mailboxes.resolve(address),
                !recipients.contains(where: { $0.address == recipient.address })
            {
                recipients.append(recipient)
            }
        }
        guard !recipients.isEmpty else { throw LocalDeliveryError.noLocalRecipient }
        let parsed: ParsedMessage
        do {
            parsed = try MIMEParser.parse(data, limits: limits)
        } catch {
            throw LocalDeliveryError.unreadable(error)
        }
        let message = Self.message(parsed, envelopeFrom: envelope.mailFrom, raw: data)
        do {
            let ids = try await store.deliver(message, to: recipients, folder: .inbox, now: clock())
            return ids[0]
        } catch let error as MailStoreError {
            throw LocalDeliveryError.stored(error)
        }
    }

    /// The store's record of a parsed message.
    public static func message(_ parsed: ParsedMessage, envelopeFrom: String, raw: [UInt8]) -> NewMailMessage {
        func records(_ addresses: [MailAddress]) -> [MailAddressRecord] {
            addresses.map { MailAddressRecord(name: $0.name, email: $0.email) }
        }
        return NewMailMessage(
            envelopeFrom: envelopeFrom, from: records(parsed.from), to: records(parsed.to), cc: records(parsed.cc),
            replyTo: records(parsed.replyTo), subject: parsed.subject, messageID: parsed.messageID,
            inReplyTo: parsed.inReplyTo, references: parsed.references, sentAt: parsed.date,
            textBody: parsed.textBody, htmlBody: parsed.htmlBody, preview: parsed.preview,
            attachments: parsed.attachments.map {
                NewMailAttachment(
                    filename: $0.filename, contentType: $0.contentType, contentID: $0.contentID,
                    disposition: $0.disposition, data: $0.data)
            }, raw: raw)
    }

    private static func domain(of address: String) -> String {
        address.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    }
}

/// Why a delivery stored nothing.
public enum LocalDeliveryError: Error, Sendable {
    /// Every recipient stopped being local between RCPT and the end of DATA (an account was deleted).
    case noLocalRecipient
    /// The message passed one of the MIME parser's limits.
    case unreadable(MIMEError)
    /// The store refused it (a full quota).
    case stored(MailStoreError)
}
