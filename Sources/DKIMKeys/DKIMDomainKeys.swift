import ComputePool
import CustomDomains

/// The DKIM key table as the custom domains' ``DomainSigningKeys``: a claimed domain's keys are made when it is added
/// and its `_domainkey` records shown beside the claim's own, by one ``DKIMKeyStore`` the composition root shares.
///
/// The store is synchronous (one small query, or key generation the first time: RSA-2048 takes a while), so each call
/// runs on the bounded worker pool's signing lane, never on the cooperative pool the async handlers need; a full pool
/// refuses at once (`WorkerPoolError.overloaded`, a 503 on the surfaces) instead of queueing without bound.
public struct DKIMDomainKeys: DomainSigningKeys {
    /// The keys.
    public let store: DKIMKeyStore
    let pool: WorkerPool

    /// - Parameters:
    ///   - store: the DKIM keys of the database the claims are in.
    ///   - pool: the worker pool (the runtime's, shared with RSA signing and Argon2) the store's calls run on.
    public init(store: DKIMKeyStore, pool: WorkerPool) {
        self.store = store
        self.pool = pool
    }

    /// The TXT records of `domain`'s signing keys, RSA then Ed25519, made first when it has none.
    /// - Throws: `DKIMKeyError` (``DKIMKeyStore/keys(for:)``); `WorkerPoolError.overloaded` when the pool is full.
    public func records(for domain: String) async throws -> [SigningKeyRecord] {
        let store = store
        return try await pool.run(.signing) {
            try store.keys(for: domain).map { SigningKeyRecord(name: $0.txtRecordName, value: $0.txtRecordValue) }
        }
    }
}
