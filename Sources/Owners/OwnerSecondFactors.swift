import SecondFactors
import TOTP

/// How an owner's TOTP secret is sealed at rest (``SecretSealing``, shared with Pro users).
public typealias OwnerSecretSealing = SecretSealing

/// Owners' second factor (issue 88 item 3, migration 0074): the shared ``SecondFactorStore`` mounted on the owners'
/// tables (``SecondFactorTables/owners``), each person named by their owner id. Every rule (the first code, the
/// window and the replay, the recovery codes' digests, the sealing) is the store's.
public struct OwnerSecondFactors: Sendable {
    /// The store on the owners' tables.
    public let store: SecondFactorStore
    /// The codes' parameters (30 s, 6 digits, one step either side).
    public var totp: TOTP { store.totp }

    /// Where an owner's second factor stands.
    public typealias State = SecondFactorStore.State
    /// What a code typed at the second step came to.
    public typealias Check = SecondFactorStore.Check

    /// - Parameter store: the shared store on the owners' tables (``SecondFactorTables/owners``, migration 0074).
    /// - Precondition: `store` is on the owners' tables.
    public init(_ store: SecondFactorStore) {
        precondition(store.tables == .owners, "owners' second factors are kept in the owners' tables")
        self.store = store
    }

    /// `ownerID`'s state (``SecondFactorStore/state(holder:)``).
    public func state(ownerID: String) async throws -> State { try await store.state(holder: ownerID) }

    /// A new secret waiting for its first code (``SecondFactorStore/begin(holder:)``).
    public func begin(ownerID: String) async throws -> [UInt8]? { try await store.begin(holder: ownerID) }

    /// The secret waiting for its first code (``SecondFactorStore/pendingSecret(holder:)``).
    public func pendingSecret(ownerID: String) async throws -> [UInt8]? {
        try await store.pendingSecret(holder: ownerID)
    }

    /// Turns the waiting secret on with a first code (``SecondFactorStore/confirm(holder:code:)``).
    public func confirm(ownerID: String, code: String) async throws -> [String]? {
        try await store.confirm(holder: ownerID, code: code)
    }

    /// Checks a code at the second step (``SecondFactorStore/check(holder:code:)``).
    public func check(ownerID: String, code: String) async throws -> Check {
        try await store.check(holder: ownerID, code: code)
    }

    /// A new set of recovery codes (``SecondFactorStore/regenerateRecoveryCodes(holder:)``).
    public func regenerateRecoveryCodes(ownerID: String) async throws -> [String]? {
        try await store.regenerateRecoveryCodes(holder: ownerID)
    }

    /// Turns the owner's second factor off (``SecondFactorStore/remove(holder:)``).
    @discardableResult
    public func remove(ownerID: String) async throws -> Bool { try await store.remove(holder: ownerID) }
}
