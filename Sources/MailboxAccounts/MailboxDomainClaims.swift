import Directory
import Storage

/// The mailbox surface's side of ``CustomDomainClaims``: a Pro user's verified domain, and the pending claims given
/// up when an owner verifies one.
public struct MailboxDomainClaims: CustomDomainClaims {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func holdsVerified(domain: String) async throws -> Bool {
        try await MailboxStore(database: database).verifiedDomain(domain) != nil
    }

    public func dropPending(domain: String) async throws {
        try await MailboxStore(database: database).deletePendingDomains(domain)
    }

    public func hasAddress(_ address: String) async throws -> Bool {
        try await MailboxStore(database: database).addressExists(address)
    }
}
