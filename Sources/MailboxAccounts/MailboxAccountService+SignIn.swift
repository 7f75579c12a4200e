/// What the web inbox asks the surface: whether an account's address and password or a Pro user's email and password
/// are right (by the very checks of `POST /api/token` and `POST /api/user/login`), and which addresses each may read.
/// The accounts' and Pro users' tables stay behind this surface.
extension MailboxAccountService {
    /// The account `address` and `credential` open, by `POST /api/token`'s rules: a v1 password against a
    /// pre-`auth_key` hash (upgraded when right), a password or `auth_key` against a v2 verifier; the same cost whether the address
    /// exists or not. Nil when refused.
    package func account(signingIn text: String?, with credential: MailboxCredential) async throws -> MailboxAccountRecord? {
        let normalized = text.flatMap(MailboxAddress.init)?.description
        let account = try await normalized.asyncFlatMap { try await store.account(address: $0) }
        let outcome = try await credentials.check(credential, address: normalized ?? text ?? "", against: account)
        guard outcome != .refused, let account else { return nil }
        if case .acceptedUpgrading(let verifier) = outcome {
            try await store.upgrade(accountID: account.id, from: account.passwordHash, to: verifier)
        }
        return account
    }

    /// The id and address of the account that `address` and `password` open (v1 and v2 accounts alike); nil when
    /// refused.
    public func signInAccount(address: String, password: String) async throws -> (id: String, address: String)? {
        guard PasswordPolicy.isPlausible(password) else { return nil }
        return try await account(signingIn: address, with: .password(password)).map { ($0.id, $0.address) }
    }

    /// How a Pro user's API token begins (`tm_pro_`): a sign-in door tells it from a password by it.
    public static var apiTokenPrefix: String { MailboxTokens.apiTokenPrefix }

    /// The id and address of the account `address` that a live `tm_pro_` API token's Pro user owns, checked as every
    /// Mail.td route checks the bearer (by digest, the token's use recorded); nil for any other token, an unknown
    /// address or another user's account (one answer for all three).
    public func signInAccount(address: String, apiToken: String) async throws -> (id: String, address: String)? {
        guard apiToken.hasPrefix(MailboxTokens.apiTokenPrefix),
            let (record, user) = try await authorizer.verify(apiToken: apiToken),
            let principal = try await authorizer.principal(.verifiedAPIToken(record, user))
        else { return nil }
        do {
            let account = try await authorizer.account(address, for: principal)
            return (account.id, account.address)
        } catch let error as MailboxError where error == .notFound {
            return nil
        }
    }

    /// The id of the active Pro user whose email and password these are; nil when refused (the same cost whether the
    /// email exists or not).
    public func signInProUser(email: String, password: String) async throws -> String? {
        guard PasswordPolicy.isPlausible(password) else { return nil }
        let user = try await Self.normalizedProEmail(email).asyncFlatMap { try await store.proUser(email: $0) }
        return try await activeProUser(user, provenBy: password)?.id
    }

    /// `user` when `password` is theirs and they are active; nil otherwise, at the same cost when there is no `user`
    /// (the hasher's decoy) or they have no password.
    package func activeProUser(_ user: ProUserRecord?, provenBy password: String) async throws -> ProUserRecord? {
        guard try await hasher.verify(password, against: user?.verifiablePasswordHash), let user, user.status == "active"
        else { return nil }
        return user
    }

    /// Removes the password of the active Pro user `id` once `password` proves it is theirs (issue 56): the hash is
    /// emptied, as a user a sign-in provider made has none (migration 0052), so `POST /api/user/login` and the web
    /// inbox's password sign-in refuse them as they refuse a wrong password. The token epoch stays: their sessions,
    /// Pro JWTs and API tokens go on, as an owner's sessions do when they remove theirs. `postern pro set-password`
    /// gives one back (and moves the epoch on). The caller makes sure another way in is left.
    /// - Returns: false when `password` is not theirs, they have none, or they are not active.
    /// - Throws: storage and pool errors.
    public func removeProUserPassword(id: String, password: String) async throws -> Bool {
        guard PasswordPolicy.isPlausible(password) else { return false }
        guard let user = try await activeProUser(store.proUser(id: id), provenBy: password) else { return false }
        return try await store.removeProUserPassword(id: id, hash: user.passwordHash)
    }

    /// The address of account `id` and its token epoch, in one read: a password reset moves the epoch on, and every
    /// token of the account issued before stops working (a web-inbox session too). Nil once the account is deleted.
    public func accountStanding(id: String) async throws -> (address: String, tokenEpoch: Int64)? {
        try await store.account(id: id).map { ($0.address, $0.tokenEpoch) }
    }

    /// The token epoch of Pro user `id` (as ``accountStanding(id:)``'s, for its JWTs) while the user exists, and their
    /// email while they are active (``activeProUserEmail(_:)``), in one read; nil once the user is gone.
    public func proUserStanding(id: String) async throws -> (tokenEpoch: Int64, activeEmail: String?)? {
        guard let user = try await store.proUser(id: id) else { return nil }
        let active = MailboxIdentifiers.isUUID(id) && user.status == "active"
        return (user.tokenEpoch, active ? user.email : nil)
    }

    /// The id of the account at `address` (as stored) while Pro user `proUserID` is active and owns it; nil otherwise.
    /// The app passwords a Pro user makes open such an account (issue 87).
    public func accountID(address: String, proUserID: String) async throws -> String? {
        guard try await activeProUserIfAny(proUserID) != nil, let record = try await store.account(address: address),
            record.ownerID == proUserID
        else { return nil }
        return record.id
    }

    /// The email of Pro user `id` while the user exists and is active; nil otherwise.
    public func activeProUserEmail(_ id: String) async throws -> String? {
        try await activeProUserIfAny(id)?.email
    }

    /// The addresses of the accounts of Pro user `id` while the user is active (oldest first); empty otherwise.
    public func accountAddresses(proUserID id: String) async throws -> [String] {
        try await accountUsage(proUserID: id).map(\.address)
    }

    /// The accounts of Pro user `id` while the user is active (oldest first), each with the bytes its mail takes and
    /// its quota (`used`, `quota` of `GET /api/user/accounts`); empty otherwise.
    public func accountUsage(proUserID id: String) async throws -> [(address: String, used: Int64, quota: Int64)] {
        guard let user = try await activeProUserIfAny(id) else { return [] }
        var accounts: [(address: String, used: Int64, quota: Int64)] = []
        var cursor: (Int64, String)?
        while true {
            let page = try await store.accounts(ownerID: user.id, after: cursor, limit: 500)
            accounts += page.map { ($0.address, $0.used, $0.quota) }
            guard page.count == 500, let last = page.last else { return accounts }
            cursor = (last.createdAt, last.id)
        }
    }
}
