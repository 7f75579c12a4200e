import Directory
import Storage

/// The mailbox surface's side of ``CustomDomainClaims``: a Pro user's domain, pending or verified.
public struct MailboxDomainClaims: CustomDomainClaims {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func holds(domain: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query("SELECT 1 FROM mailbox_pro_domains WHERE domain = ?", [.text(domain)]).isEmpty
        }
    }
}
