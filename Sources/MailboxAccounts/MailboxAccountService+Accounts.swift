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
        let (record, token) = try await createAccount(at: address, credential: .password(password), owner: nil, now: now)
        return (MailboxAccountSummary(record), token)
    }

    /// Makes the account at `address` that `credential` opens, free or `owner`'s (within its `max_accounts`), and a
    /// mailbox token for it: what every door's sign-up comes to once it checked the domain and its own admission (a
    /// proof of work, a rate limit).
    /// - Throws: ``MailboxError/addressTaken``, ``MailboxError/accountLimitReached`` (a race past the owner's limit);
    ///   storage errors.
    package func createAccount(at address: MailboxAddress, credential: MailboxCredential, owner: ProUserRecord?, now: Int64)
        async throws -> (record: MailboxAccountRecord, token: String)
    {
        if try await store.addressExists(address.description) { throw MailboxError.addressTaken }
        let record = MailboxAccountRecord(
            id: MailboxIdentifiers.uuid(), address: address.description, passwordHash: "",
            authVerifier: try await credentials.verifier(for: credential, address: address.description),
            ownerID: owner?.id, quota: owner == nil ? configuration.quotas.free : configuration.quotas.pro, used: 0,
            tokenEpoch: 0, createdAt: now)
        try await store.insert(record, ownerLimit: owner?.maxAccounts)
        metrics.accountCreated(pro: owner != nil)
        return (record, try tokens.mailboxToken(for: record, now: now))
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
