import Foundation
import SigningKeys
import Storage

/// Opens the signing keys where the configuration keeps them: sealed in the database when it is PostgreSQL (shared by
/// every instance), in the data directory's `keys/` otherwise.
package enum SigningKeyStores {
    /// The longest lifetime of any token Postern mints (mailbox and Pro JWTs: 7 days); a rotated-out key
    /// keeps verifying and stays published this long.
    package static let maxTokenTTL: Int64 = 7 * 24 * 3600

    /// What seals the keys kept in `database` (`POSTERN_KEY_SECRET` through scrypt, with the database's salt): on
    /// PostgreSQL, made once and shared by the signing keys' and the DKIM keys' stores; nil on SQLite, whose keys
    /// are not sealed.
    package static func sealer(configuration: PosternConfiguration, database: any SQLDatabase) throws -> KeySealer? {
        guard database.dialect == .postgres else { return nil }
        return try KeySealer(secret: configuration.signingKeys.secret ?? "", database: database)
    }

    /// The configuration's key store, honouring `JWT_PRIVATE_KEY`/`JWT_PUBLIC_KEY`.
    /// - Parameters:
    ///   - database: the migrated database; its dialect decides where the keys are.
    ///   - sealer: ``sealer(configuration:database:)``'s, when the caller made it already; else made here.
    package static func open(
        configuration: PosternConfiguration, database: any SQLDatabase, sealer: KeySealer? = nil,
        clock: @escaping @Sendable () -> Int64
    ) throws -> any SigningKeyStore {
        // A server may sign with a rotated-out key until its next reload: retention covers that too.
        let ttl = maxTokenTTL + Int64(configuration.signingKeys.reloadSeconds)
        if database.dialect == .postgres {
            return try DatabaseKeyStore(
                database: database,
                sealer: sealer ?? KeySealer(secret: configuration.signingKeys.secret ?? "", database: database),
                environmentPrivatePEM: configuration.signingKeys.privateKeyPEM,
                environmentPublicPEM: configuration.signingKeys.publicKeyPEM, maxTokenTTL: ttl,
                promotionDelay: Int64(configuration.signingKeys.effectivePromotionSeconds), clock: clock)
        }
        try DataDirectory.prepare(configuration.storage.dataDirectory)
        return try KeyStore(
            directory: configuration.storage.dataDirectory,
            environmentPrivatePEM: configuration.signingKeys.privateKeyPEM,
            environmentPublicPEM: configuration.signingKeys.publicKeyPEM, maxTokenTTL: ttl, now: clock())
    }
}
