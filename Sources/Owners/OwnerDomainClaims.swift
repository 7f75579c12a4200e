import Directory
import Storage

/// The owners' side of ``CustomDomainClaims``: an owner's domain, pending or verified.
public struct OwnerDomainClaims: CustomDomainClaims {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func holds(domain: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query("SELECT 1 FROM owner_domains WHERE domain = ?", [.text(domain)]).isEmpty
        }
    }
}
