/// Mail.td's passwords and Pro tokens for a door that runs the backoff itself on ``MailSignIn``'s keys (the web inbox's
/// sign-in form, whose answer is a page): the same checks as the mail doors', without their bucket or audit.
extension MailSignIn {
    /// The account `address` and `password` open, by `POST /api/token`'s rules, with its token epoch now (what a
    /// session resting on it compares later); nil when refused or the account is gone.
    /// - Throws: storage and pool errors.
    public func account(address: String, password: String) async throws -> (id: String, tokenEpoch: Int64)? {
        guard let (id, _) = try await accounts.signInAccount(address: address, password: password),
            let (_, epoch) = try await accounts.accountStanding(id: id)
        else { return nil }
        return (id, epoch)
    }

    /// The active Pro user whose email and password these are, with their token epoch now; nil when refused.
    /// - Throws: storage and pool errors.
    public func proUser(email: String, password: String) async throws -> (id: String, tokenEpoch: Int64)? {
        guard let id = try await accounts.signInProUser(email: email, password: password),
            let (epoch, _) = try await accounts.proUserStanding(id: id)
        else { return nil }
        return (id, epoch)
    }

    /// The ids of a live `tm_pro_` API token and its active Pro user; nil for anything else.
    /// - Throws: storage errors.
    public func proUser(apiToken token: String) async throws -> (tokenID: String, userID: String)? {
        try await accounts.verifyAPIToken(token)
    }
}
