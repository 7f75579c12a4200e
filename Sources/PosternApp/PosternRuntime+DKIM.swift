import DKIMKeys
import Logging
import Storage

extension PosternRuntime {
    /// The DKIM keys of `database`, with the agent inbox domain's made now when it has none (its first start): an
    /// RSA-2048 and an Ed25519 key. Idempotent: existing keys are kept. Instances starting at once on one PostgreSQL
    /// end with the same keys, since `dkim_keys` allows one signing key per domain and algorithm and the store's
    /// insert leaves the keys that won (``DKIMKeyStore/keys(for:)``). New keys are logged with the records to publish.
    /// - Throws: `DKIMKeyError` (a key that cannot be made or opened, `POSTERN_KEY_SECRET` on PostgreSQL, the
    ///   database).
    static func agentDomainDKIMKeys(
        _ configuration: PosternConfiguration, database: any SQLDatabase, clock: @escaping @Sendable () -> Int64,
        logger: Logger
    ) throws -> DKIMKeyStore {
        let store = try DKIMKeyStore(database: database, sealingSecret: configuration.signingKeys.secret, clock: clock)
        let domain = configuration.agent.inboxDomain
        let had = try store.history(for: domain).contains { $0.retiredAt == nil }
        let keys = try store.keys(for: domain)
        if !had {
            logger.notice(
                "made the agent inbox domain's DKIM keys: publish their TXT records (postern dkim show --domain)",
                metadata: ["domain": "\(domain)", "records": "\(keys.map(\.txtRecordName))"])
        }
        return store
    }
}
