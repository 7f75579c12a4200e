import DKIMKeys
import Logging
import PosternApp
import Storage

extension Operations {
    /// `postern dkim show`: the DNS TXT records of `domain`'s signing keys, made first when it has none: for each
    /// algorithm (RSA, then Ed25519) a line with the record's name and a line with its value.
    /// - Throws: `DKIMKeyError` (an invalid domain, `POSTERN_KEY_SECRET` missing on PostgreSQL), database errors.
    public static func showDKIM(configuration: PosternConfiguration, domain: String, logger: Logger) throws
        -> [String]
    {
        try withDKIMKeyStore(configuration, logger: logger) { store, _ in
            try store.keys(for: domain).flatMap(describe)
        }
    }

    /// `postern dkim rotate`: new keys under new selectors for `domain`, signing from now on; returns their records
    /// as ``showDKIM(configuration:domain:logger:)`` does, after a line naming the selectors they replace. The audit
    /// trail records the rotation (the domain and the selectors, never a key).
    public static func rotateDKIM(configuration: PosternConfiguration, domain: String, logger: Logger) throws
        -> [String]
    {
        try withDKIMKeyStore(configuration, logger: logger) { store, database in
            let old = try store.history(for: domain).filter { $0.retiredAt == nil }.map(\.selector)
            let new = try store.rotate(domain: domain)
            recordOperator(
                database, target: "dkim rotate",
                details: [
                    "domain": domain, "selectors": new.map(\.selector).joined(separator: " "),
                    "retired": old.joined(separator: " "),
                ], logger: logger)
            let retired =
                old.isEmpty
                ? "the domain had no keys: these are its first"
                : "retired \(old.joined(separator: " ")): keep their records until the mail they signed is delivered"
            return [retired] + new.flatMap(describe)
        }
    }

    private static func withDKIMKeyStore<T>(
        _ configuration: PosternConfiguration, logger: Logger, _ body: (DKIMKeyStore, any SQLDatabase) throws -> T
    ) throws -> T {
        try configuration.validate()
        let database = try migratedDatabase(configuration, logger: logger)
        defer { database.close() }
        let store = try DKIMKeyStore(
            database: database, sealingSecret: configuration.signingKeys.secret, clock: { unixNow() })
        return try body(store, database)
    }

    /// The record's name, then its value.
    private static func describe(_ key: DKIMKey) -> [String] {
        [key.txtRecordName, key.txtRecordValue]
    }
}
