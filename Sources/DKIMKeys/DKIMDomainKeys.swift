import CustomDomains
import Foundation

/// The DKIM key table as the custom domains' ``DomainSigningKeys``: a claimed domain's keys are made when it is added
/// and its `_domainkey` records shown beside the claim's own, by one ``DKIMKeyStore`` the composition root shares.
///
/// The store is synchronous (one small query, or key generation the first time: RSA-2048 takes a while), so each call
/// runs on a thread of its own and never blocks the cooperative pool the async handlers need.
public struct DKIMDomainKeys: DomainSigningKeys {
    /// The keys.
    public let store: DKIMKeyStore

    /// - Parameter store: the DKIM keys of the database the claims are in.
    public init(store: DKIMKeyStore) {
        self.store = store
    }

    /// The TXT records of `domain`'s signing keys, RSA then Ed25519, made first when it has none.
    /// - Throws: `DKIMKeyError` (``DKIMKeyStore/keys(for:)``).
    public func records(for domain: String) async throws -> [SigningKeyRecord] {
        let store = store
        let result: Result<[DKIMKey], DKIMKeyError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Result { () throws(DKIMKeyError) in try store.keys(for: domain) })
            }
        }
        return try result.get().map { SigningKeyRecord(name: $0.txtRecordName, value: $0.txtRecordValue) }
    }
}
