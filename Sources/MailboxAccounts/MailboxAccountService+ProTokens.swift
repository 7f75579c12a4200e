import AuthCrypto

/// A Pro user's API token as its user may see it: never the token, which is shown once when it is made.
public struct ProTokenInfo: Sendable, Equatable {
    /// The token's id (a UUID): what revokes it.
    public let id: String
    /// The name its user gave it.
    public let name: String
    /// Unix seconds.
    public let createdAt: Int64
    /// Unix seconds of its last use (at most one write a second), nil before any.
    public let lastUsedAt: Int64?
    /// Unix seconds of its revocation, nil while it works.
    public let revokedAt: Int64?
}

/// The rules of a Pro user's API tokens, once: `POST|GET /api/user/tokens`, `DELETE /api/user/tokens/{id}`
/// (``ProTokensController``) and the web inbox's Pro dashboard call these, so a rule or limit applies to both.
extension MailboxAccountService {
    /// Longest token name, in characters.
    static let maximumTokenNameLength = 100

    /// Makes a `tm_pro_` token for `user`: the token (shown this once; only its digest is kept) and what is listed.
    /// `name` nil or empty is `"api"`.
    /// - Throws: ``MailboxError/invalidRequest`` for a name over 100 characters; storage errors.
    package func createAPIToken(for user: ProUserRecord, name: String?, now: Int64, client: String?) async throws
        -> (info: ProTokenInfo, token: String)
    {
        let name = name.flatMap { $0.isEmpty ? nil : $0 } ?? "api"
        guard name.count <= Self.maximumTokenNameLength else { throw MailboxError.invalidRequest }
        let (token, digest) = MailboxTokens.newAPIToken()
        let record = ProTokenRecord(
            id: MailboxIdentifiers.uuid(), userID: user.id, name: name, digest: digest, createdAt: now)
        try await store.insert(record)
        await recordPro(user.id, .proTokenCreated, target: record.id, clientAddress: client)
        return (Self.info(record), token)
    }

    /// Every token of `user`, revoked ones too, oldest first.
    package func apiTokens(of user: ProUserRecord) async throws -> [ProTokenInfo] {
        try await store.proTokens(userID: user.id).map(Self.info)
    }

    /// Revokes `user`'s token `id` at once (the next request with it is refused); revoking twice is no error.
    /// - Throws: ``MailboxError/notFound`` when the user has no such token.
    package func revokeAPIToken(id: String, of user: ProUserRecord, now: Int64, client: String?) async throws {
        guard MailboxIdentifiers.isUUID(id) else { throw MailboxError.notFound }
        let result = try await store.revokeProToken(id: id, userID: user.id, now: now)
        guard result.found else { throw MailboxError.notFound }
        if result.revoked { await recordPro(user.id, .proTokenRevoked, target: id, clientAddress: client) }
    }

    /// A new `tm_pro_` token for the active Pro user `proUserID` (the web inbox's dashboard).
    /// - Throws: ``MailboxError/invalidOrExpiredToken`` when the user is gone or not active,
    ///   ``MailboxError/invalidRequest`` for a name over 100 characters; storage errors.
    public func createAPIToken(proUserID: String, name: String?, client: String?) async throws
        -> (info: ProTokenInfo, token: String)
    {
        try await createAPIToken(for: activeProUser(proUserID), name: name, now: clock(), client: client)
    }

    /// The tokens of the active Pro user `proUserID`, revoked ones too, without the secrets.
    public func apiTokens(proUserID: String) async throws -> [ProTokenInfo] {
        try await apiTokens(of: activeProUser(proUserID))
    }

    /// Revokes token `id` of the active Pro user `proUserID`.
    /// - Throws: ``MailboxError/notFound`` when it is not theirs (another user's id included).
    public func revokeAPIToken(id: String, proUserID: String, client: String?) async throws {
        try await revokeAPIToken(id: id, of: activeProUser(proUserID), now: clock(), client: client)
    }

    private static func info(_ record: ProTokenRecord) -> ProTokenInfo {
        ProTokenInfo(
            id: record.id, name: record.name, createdAt: record.createdAt, lastUsedAt: record.lastUsedAt,
            revokedAt: record.revokedAt)
    }
}
