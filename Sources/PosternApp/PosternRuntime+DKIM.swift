import DKIMKeys
import Logging
import SigningKeys
import Storage

extension PosternRuntime {
    /// The DKIM keys of `database`, with the agent inbox domain's made now when it has none (its first start): an
    /// RSA-2048 and an Ed25519 key. Idempotent: existing keys are kept. Instances starting at once on one PostgreSQL
    /// end with the same keys, since `dkim_keys` allows one signing key per domain and algorithm and the store's
    /// insert leaves the keys that won (``DKIMKeyStore/keys(for:)``). New keys are logged with the records to publish.
    /// - Throws: `DKIMKeyError` (a key that cannot be made or opened, `POSTERN_KEY_SECRET` on PostgreSQL, the
    ///   database).
    /// - Parameter sealer: the signing keys' sealer (``SigningKeyStores/sealer(configuration:database:)``), when
    ///   the caller made it: then the sealing key is not derived again.
    static func agentDomainDKIMKeys(
        _ configuration: PosternConfiguration, database: any SQLDatabase, sealer: KeySealer? = nil,
        clock: @escaping @Sendable () -> Int64, logger: Logger
    ) throws -> DKIMKeyStore {
        let store =
            try sealer.map { DKIMKeyStore(database: database, sealer: $0, clock: clock) }
            ?? DKIMKeyStore(database: database, sealingSecret: configuration.signingKeys.secret, clock: clock)
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
