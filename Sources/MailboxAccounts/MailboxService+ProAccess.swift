import HTTP1
import ServerKit

/// What a controller of another target (webhooks, the sandbox) asks the surface: who the Pro user of a call is, and
/// whether an API token or its id is still live. The Pro users' and tokens' tables stay behind this surface.
extension MailboxService {
    /// The id of the active Pro user the call's bearer names (a Pro JWT or a live `tm_pro_` API token).
    /// - Throws: ``MailboxError/invalidOrExpiredToken`` for anything else (anonymous, a mailbox token); storage errors.
    public func requireProUserID(_ call: MailboxCall) async throws -> String {
        try await authorizer.requireProUser(call.bearer).id
    }

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

    /// The first mailbox domain (`localhost` when none is configured): the sandbox's addresses are under it.
    public var primaryDomain: String { configuration.domains.first ?? "localhost" }

    /// Unix seconds now, on the surface's clock.
    public func now() -> Int64 { clock() }
}

/// Records a target keeps beside the mail store's messages (the sandbox's envelope and verdicts), forgotten when the
/// operator deletes every message (`DELETE /api/operator/messages`) or one (`DELETE /api/operator/messages/{id}`).
public protocol MailboxMessageRecords: Sendable {
    /// Deletes every such record.
    func deleteEveryRecord() async throws
    /// Deletes the records of message `id` (none is fine).
    func deleteRecords(ofMessage id: String) async throws
}
