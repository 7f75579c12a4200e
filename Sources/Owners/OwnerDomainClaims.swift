import Directory
import Storage

/// The owners' side of ``CustomDomainClaims``: an owner's verified domain, and the pending claims given up when a Pro
/// user verifies one.
public struct OwnerDomainClaims: CustomDomainClaims {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func holdsVerified(domain: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query(
                "SELECT 1 FROM owner_domains WHERE domain = ? AND verified_at IS NOT NULL", [.text(domain)]
            ).isEmpty
        }
    }

    public func dropPending(domain: String) async throws {
        _ = try await database.write { connection in
            try connection.run("DELETE FROM owner_domains WHERE domain = ? AND verified_at IS NULL", [.text(domain)])
        }
    }

    /// An owner's inbox on a custom domain is the agent account named by its whole address, revoked or not.
    public func hasAddress(_ address: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query("SELECT 1 FROM agent_accounts WHERE username = ?", [.text(address)]).isEmpty
        }
    }
}
