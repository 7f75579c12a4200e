import Directory

/// An agent's inbox API key as a bearer (the MCP surface's one-step connect): the live agent whose key digest
/// matches, and its inbox as the directory resolves it now, so that a revoked agent or a rotated key is refused on the
/// next request.
public struct AgentAPIKeyAuthenticator: PrincipalAuthenticator {
    let accounts: AgentAccountStore
    let inboxDomain: String
    let directory: any AccountDirectory

    /// - Parameters:
    ///   - accounts: the `agent_accounts` table.
    ///   - inboxDomain: the agent inbox domain (``AgentInbox``).
    ///   - directory: where the agent's inbox must be a local mailbox.
    public init(accounts: AgentAccountStore, inboxDomain: String, directory: any AccountDirectory) {
        self.accounts = accounts
        self.inboxDomain = inboxDomain
        self.directory = directory
    }

    /// The agent's account and inbox, or nil: not a Postern API key, no live agent with that key, or an inbox that
    /// is no longer local. The key is found by its SHA-256 digest, never compared in clear.
    /// - Throws: storage errors.
    public func principal(for credentials: Credentials) async throws -> Principal? {
        let key = credentials.bearerToken
        guard key.hasPrefix(AgentAPIKey.prefix), key.utf8.count <= 256 else { return nil }
        guard let account = try await accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(key)) else { return nil }
        let address = AgentInbox.address(username: account.username, domain: inboxDomain)
        guard case .local(let mailbox) = try await directory.resolve(address) else { return nil }
        return Principal(accountID: account.id, mailbox: mailbox)
    }
}
