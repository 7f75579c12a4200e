/// What another target (the webhooks, the sandbox, mail.cx, the web inbox) asks of Pro users: whether an API token or
/// its id is still live, and who is active. The Pro users' and tokens' tables stay behind this service.
extension MailboxAccountService {
    /// The ids of a live `tm_pro_` API token and its active user (compared by digest, in constant time); nil for
    /// anything else.
    public func verifyAPIToken(_ token: String) async throws -> (tokenID: String, userID: String)? {
        guard token.hasPrefix(MailboxTokens.apiTokenPrefix),
            let (record, user) = try await authorizer.verify(apiToken: token)
        else { return nil }
        return (record.id, user.id)
    }

    /// The active Pro user behind the unrevoked API token with id `tokenID`; nil once the token was revoked or the
    /// user suspended, and for anything but a UUID.
    public func proUserID(ofLiveToken tokenID: String) async throws -> String? {
        guard MailboxIdentifiers.isUUID(tokenID), let token = try await store.liveProToken(id: tokenID),
            let user = try await store.proUser(id: token.userID), user.status == "active"
        else { return nil }
        return user.id
    }

    /// The active Pro user `id`.
    /// - Throws: ``MailboxError/invalidOrExpiredToken`` when there is none, or it is not active (as a bearer of a
    ///   suspended user is answered).
    func activeProUser(_ id: String) async throws -> ProUserRecord {
        guard let user = try await activeProUserIfAny(id) else { throw MailboxError.invalidOrExpiredToken }
        return user
    }

    /// The active Pro user `id`; nil when there is none or it is not active. The one statement of that rule for the
    /// dashboard's functions, the web inbox's sign-in and its scope.
    func activeProUserIfAny(_ id: String) async throws -> ProUserRecord? {
        guard MailboxIdentifiers.isUUID(id), let user = try await store.proUser(id: id), user.status == "active" else {
            return nil
        }
        return user
    }

    /// The first mailbox domain (`localhost` when none is configured): the sandbox's addresses are under it.
    public var primaryDomain: String { configuration.domains.first ?? "localhost" }

    /// Unix seconds now, on the surface's clock.
    public func now() -> Int64 { clock() }
}
