import ServerKit

/// A Mail.td account as the other doors onto the same accounts show it (mail.tm's Account resource and its Mercure
/// events): its id and address, its quota, the bytes its mail holds now and when it was made.
public struct MailboxAccountSummary: Sendable, Equatable {
    /// The account's UUID.
    public let id: String
    /// Its address, in the comparison form every surface uses.
    public let address: String
    /// Bytes it may hold.
    public let quota: Int64
    /// Bytes its mail holds (the mail store's count, read with the row).
    public let used: Int64
    /// When it was made, Unix seconds.
    public let createdAt: Int64

    init(_ record: MailboxAccountRecord) {
        (id, address, quota, used, createdAt) =
            (record.id, record.address, record.quota, record.used, record.createdAt)
    }
}

/// What another door onto Mail.td's accounts (mail.tm's API, `MailTM`) asks of them: the one owner of accounts,
/// passwords and mailbox tokens stays this surface, so an account made through one door signs in, reads and is deleted
/// through every other, and a token of one is a token of all.
extension MailboxAccountService {
    /// Makes a free account at `text` with `password`, on one of `domains` (the calling door's, each one this
    /// surface's public or Pro domain), and a mailbox token for it. No proof of work is asked: the calling door charges
    /// its own rate limit.
    /// - Throws: ``MailboxError`` `.invalidAddress`, `.invalidDomain` (not one of `domains`), `.passwordTooShort`,
    ///   `.passwordTooLong`, `.addressTaken`; storage errors.
    public func createFreeAccount(address text: String, password: String, on domains: [String], now: Int64)
        async throws -> (account: MailboxAccountSummary, token: String)
    {
        guard let address = MailboxAddress(text) else { throw MailboxError.invalidAddress }
        guard domains.contains(address.domain) else { throw MailboxError.invalidDomain }
        try PasswordPolicy.validateNew(password)
        if try await store.addressExists(address.description) { throw MailboxError.addressTaken }
        let record = MailboxAccountRecord(
            id: MailboxIdentifiers.uuid(), address: address.description, passwordHash: "",
            authVerifier: try await credentials.verifier(for: .password(password), address: address.description),
            ownerID: nil, quota: configuration.quotas.free, used: 0, tokenEpoch: 0, createdAt: now)
        try await store.insert(record, ownerLimit: nil)
        metrics.accountCreated(pro: false)
        return (MailboxAccountSummary(record), try tokens.mailboxToken(for: record, now: now))
    }

    /// The account `address` and `password` open, with a fresh mailbox token; nil when refused (one answer, and the
    /// same cost, whether the address exists or not).
    public func signIn(address: String, password: String, now: Int64) async throws
        -> (account: MailboxAccountSummary, token: String)?
    {
        guard PasswordPolicy.isPlausible(password),
            let record = try await account(signingIn: address, with: .password(password))
        else { return nil }
        return (MailboxAccountSummary(record), try tokens.mailboxToken(for: record, now: now))
    }

    /// The live account a mailbox token speaks for, read now (its `used` current).
    /// - Throws: ``MailboxError/invalidOrExpiredToken`` for no bearer, anything but a mailbox token (a Pro JWT or API
    ///   token included), or a token that is bad, expired, superseded or of an account that is gone.
    public func account(mailboxToken bearer: String?) async throws -> MailboxAccountSummary {
        let bearer = authorizer.classify(bearer)
        guard case .mailbox = bearer, case .account(let record)? = try await authorizer.principal(bearer) else {
            throw MailboxError.invalidOrExpiredToken
        }
        return MailboxAccountSummary(record)
    }

    /// Account `id` as it is now; nil when there is none.
    public func accountSummary(id: String) async throws -> MailboxAccountSummary? {
        guard MailboxIdentifiers.isUUID(id) else { return nil }
        return try await store.account(id: id).map(MailboxAccountSummary.init)
    }

    /// Deletes account `id` (its tokens fail at once); false when it was already gone.
    public func deleteAccount(id: String) async throws -> Bool {
        try await store.deleteAccount(id: id)
    }
}
