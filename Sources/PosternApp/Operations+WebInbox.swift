import Logging
import Storage
import WebInbox

/// The operator command behind `postern web link`.
extension Operations {
    /// A one-time link (ten minutes, single use, stored as a digest) under the public URL that opens the mailbox of
    /// `address` in the web inbox without a password: for a developer who wants to see what a test received.
    /// - Throws: ``WebInboxLinkError/notLocal`` when no local mailbox has that address; storage errors.
    public static func webInboxLink(configuration: PosternConfiguration, address: String, logger: Logger)
        async throws -> String
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let mail = Surfaces.localMail(configuration, database: database, clock: { unixNow() })
        guard case .local(let recipient) = try await mail.directory.resolve(address) else {
            throw WebInboxLinkError.notLocal
        }
        let listener = configuration.listener
        let identity = configuration.identity.publicIdentity(listeningOn: listener.host, port: listener.port)
        let settings = WebInboxConfiguration(publicURL: identity.baseURL)
        let token = try await WebInboxSessions(database: database, clock: { unixNow() })
            .makeLink(address: recipient.address, lifetime: settings.linkLifetime)
        recordOperator(database, target: "web link", details: ["address": recipient.address], logger: logger)
        return identity.baseURL + "/inbox/link/" + token
    }
}

/// Why `postern web link` made no link.
public enum WebInboxLinkError: Error, Equatable {
    /// No local mailbox (agent inbox or Mail.td account) has that address.
    case notLocal
}
