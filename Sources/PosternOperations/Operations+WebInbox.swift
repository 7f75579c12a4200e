import EmailAddresses
import Foundation
import Logging
import MailDelivery
import MailStore
import PosternApp
import Storage
import WebInbox

/// The operator commands behind `postern web link`.
extension Operations {
    /// A one-time link (ten minutes, single use, stored as a digest) that opens the mailbox holding `address`'s mail
    /// in the web inbox without a password: for a developer who wants to see what a test received. The mailbox is
    /// found as delivery finds it (``mailbox(holding:mail:)``).
    /// - Parameters:
    ///   - baseURL: the running server's base URL when the caller knows it (a ports file); nil asks the data
    ///     directory's ``RunningServerRecord``, then the configuration.
    /// - Throws: ``WebInboxLinkError/notLocal`` when no local mailbox holds mail for that address; storage errors.
    public static func webInboxLink(
        configuration: PosternConfiguration, address: String, baseURL: String? = nil, logger: Logger
    ) async throws -> String {
        let (database, mail) = try commandMail(configuration, logger: logger)
        guard let mailbox = try await mailbox(holding: address, mail: mail) else { throw WebInboxLinkError.notLocal }
        let base = baseURL ?? linkBaseURL(configuration)
        let token = try await WebInboxSessions(database: database, clock: { unixNow() })
            .makeLink(address: mailbox, lifetime: WebInboxConfiguration(publicURL: base).linkLifetime)
        recordOperator(database, target: "web link", details: ["address": mailbox], logger: logger)
        return base + "/inbox/link/" + token
    }

    /// A one-time link (ten minutes, single use) that opens every mailbox holding mail, read-only: each mailbox's
    /// live list and message pages, with no send, no delete and no change of read state (`postern web link --all`).
    /// - Parameter baseURL: as ``webInboxLink(configuration:address:baseURL:logger:)``'s.
    /// - Throws: storage errors.
    public static func webInboxAllMailLink(configuration: PosternConfiguration, baseURL: String? = nil, logger: Logger)
        async throws -> String
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let base = baseURL ?? linkBaseURL(configuration)
        let token = try await WebInboxSessions(database: database, clock: { unixNow() })
            .makeAllMailLink(lifetime: WebInboxConfiguration(publicURL: base).linkLifetime)
        recordOperator(database, target: "web link", details: ["address": "all mail"], logger: logger)
        return base + "/inbox/link/" + token
    }

    /// The address of the mailbox that holds mail sent to `address`, as delivery routes it: the address's own
    /// mailbox; the base address of a subaddress (`alice+tag@dom`, with the configured delimiters); the catch-all's
    /// (`catch-all`, its reserved address, or an address only the catch-all takes: the catch-all is on, or it holds
    /// mail whose envelope named `address`). Nil when no mailbox holds its mail.
    /// - Throws: storage errors.
    static func mailbox(holding address: String, mail: Surfaces.LocalMail) async throws -> String? {
        let wanted = EmailAddress.key(address.trimmingCharacters(in: .whitespaces))
        let catchAll = RecipientPolicy.catchAllAddress
        if wanted == "catch-all" || wanted == catchAll { return catchAll }
        if case .local(let recipient) = try await mail.delivery.resolve(wanted) { return recipient.address }
        guard wanted.contains("@") else { return nil }
        if mail.delivery.policy.catchAll != nil { return catchAll }
        return try await mail.store.holdsMail(address: catchAll, sentTo: wanted) ? catchAll : nil
    }

    /// The base URL links go under: the running server's (its record in the data directory), else the configured
    /// public URL, else the configured listener's.
    static func linkBaseURL(_ configuration: PosternConfiguration) -> String {
        let directory = configuration.storage.absoluteDataDirectory
        if let running = RunningServerRecord.running(dataDirectory: directory) { return running.baseURL }
        let listener = configuration.listener
        return configuration.identity.publicIdentity(listeningOn: listener.host, port: listener.port).baseURL
    }
}

/// Why `postern web link` made no link.
public enum WebInboxLinkError: Error, Equatable {
    /// No local mailbox (agent inbox, Mail.td account, the catch-all) holds mail for that address.
    case notLocal
}
