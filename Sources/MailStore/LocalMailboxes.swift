import Storage

/// Which addresses are local, and how much each may hold: mailbox accounts on the mailbox domains and the inboxes
/// of live agents on the agent inbox domain. Reads the two surfaces' account tables, which are what make an
/// address exist.
public struct LocalMailboxes: Sendable {
    /// What an address is to this server.
    public enum Resolution: Sendable, Equatable {
        /// A local mailbox: the lower-cased address and its quota in bytes.
        case local(MailStore.Recipient)
        /// On a local domain, but nobody has it (SMTP 550 5.1.1).
        case unknown
        /// On a domain this server does not serve (SMTP 550 5.7.1: no relay).
        case foreign
    }

    let database: any SQLDatabase
    let mailboxDomains: Set<String>
    let agentDomain: String
    let agentQuota: Int64

    /// - Parameters:
    ///   - mailboxDomains: public and Pro-only mailbox domains.
    ///   - agentDomain: the domain of agent inboxes (`<username>@<agentDomain>`).
    ///   - agentQuota: bytes an agent inbox may hold (mailbox accounts carry their own quota).
    public init(database: any SQLDatabase, mailboxDomains: [String], agentDomain: String, agentQuota: Int64) {
        self.database = database
        self.mailboxDomains = Set(mailboxDomains.map { $0.lowercased() })
        self.agentDomain = agentDomain.lowercased()
        self.agentQuota = agentQuota
    }

    /// Whether `domain` is served here.
    public func isLocal(domain: String) -> Bool {
        let domain = domain.lowercased()
        return domain == agentDomain || mailboxDomains.contains(domain)
    }

    /// Resolves `address` (any case; no surrounding angle brackets).
    public func resolve(_ address: String) async throws -> Resolution {
        let lowered = address.lowercased()
        let parts = lowered.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, isLocal(domain: String(parts[1])) else { return .foreign }
        let local = String(parts[0])
        let domain = String(parts[1])
        let agentDomain = agentDomain, agentQuota = agentQuota
        let isMailboxDomain = mailboxDomains.contains(domain)
        return try await database.read { connection in
            if isMailboxDomain, let quota = try connection.query(
                "SELECT quota FROM mailbox_accounts WHERE address = ?", [.text(lowered)]
            ).first?.int("quota") {
                return .local(MailStore.Recipient(address: lowered, quota: quota))
            }
            if domain == agentDomain, try !connection.query(
                "SELECT 1 FROM agent_accounts WHERE username = ? AND revoked_at IS NULL", [.text(local)]
            ).isEmpty {
                return .local(MailStore.Recipient(address: lowered, quota: agentQuota))
            }
            return .unknown
        }
    }
}
