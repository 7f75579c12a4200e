/// What mail.cx's `/api/ws` (the MailCX target) asks of the accounts: a mailbox token held for as long as a socket
/// lives, and the sockets' places per account across instances (`mailbox_sockets`).
extension MailboxAccountService {
    /// A live mailbox token as a socket holds it: the account it opened, and the token's claims, checked again while
    /// the socket lives by the account's token epoch (a password reset, the account's deletion), as when it opened.
    public struct MailboxTokenHold: Sendable {
        let bearer: MailboxBearer
        /// The account the token opened.
        public let account: MailboxAccountSummary
    }

    /// The hold of `token` when it is a live mailbox token (a correctly signed, unexpired mailbox JWT of a live
    /// account at its current epoch); nil for anything else, a Pro JWT or API token included.
    /// - Throws: storage errors.
    public func holdMailboxToken(_ token: String) async throws -> MailboxTokenHold? {
        let bearer = authorizer.classify(token)
        guard case .mailbox = bearer else { return nil }
        do {
            guard case .account(let record)? = try await authorizer.principal(bearer) else { return nil }
            return MailboxTokenHold(bearer: bearer, account: MailboxAccountSummary(record))
        } catch let error as MailboxError where error == .invalidOrExpiredToken {
            return nil
        }
    }

    /// Whether `hold`'s token still opens its account (the account live, its token epoch the same).
    /// - Throws: storage errors (a database away for a failover: the caller waits it out).
    public func stillHolds(_ hold: MailboxTokenHold) async throws -> Bool {
        do {
            if case .account? = try await authorizer.principal(hold.bearer) { return true }
        } catch let error as MailboxError where error == .invalidOrExpiredToken {}
        return false
    }

    /// Records socket `id` under `key` until `expiresAt` when fewer than `limit` live ones are; false (nothing
    /// written) when `limit` are, counted across every instance in one transaction.
    /// - Throws: storage errors.
    public func claimSocket(id: String, key: String, now: Int64, expiresAt: Int64, limit: Int) async throws -> Bool {
        try await store.claimSocket(id: id, accountID: key, now: now, expiresAt: expiresAt, limit: limit)
    }

    /// Pushes socket `id`'s expiry on (it is still open).
    /// - Throws: storage errors.
    public func refreshSocket(id: String, expiresAt: Int64) async throws {
        try await store.refreshSocket(id: id, expiresAt: expiresAt)
    }

    /// Forgets socket `id` (it closed).
    /// - Throws: storage errors.
    public func releaseSocket(id: String) async throws {
        try await store.releaseSocket(id: id)
    }
}
