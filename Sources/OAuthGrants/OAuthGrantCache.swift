import Synchronization
import Time

/// The grants this instance found live, by access-token `jti`, until the token expires or a revocation drops them:
/// ``invalidate(grantID:)`` for one grant (the `postern_grants` notification of any instance, or the local revocation
/// path), ``invalidateAll()`` when revocations may have been missed (the listener reconnected). A read that started
/// before an invalidation never stores what it read, so a revoked grant is not brought back by a slow query.
///
/// One per instance, made by the composition root, which hands it to the verifier, observes the grant store's
/// revocations with it and, on PostgreSQL, feeds it `postern_grants`.
public final class OAuthGrantCache: OAuthGrantRevocationObserver {
    private struct State {
        var byJTI: ExpiringEntries<String, OAuthGrantRecord>
        var jtisByGrant: [String: Set<String>] = [:]
        /// Bumped by every invalidation.
        var generation: UInt64 = 0
    }

    private let state: Mutex<State>

    /// - Parameter capacity: the most tokens kept (at least 1).
    public init(capacity: Int = 100_000) {
        state = Mutex(State(byJTI: ExpiringEntries(capacity: capacity) { record, now in record.isLive(at: now) }))
    }

    /// The PostgreSQL channel on which the `oauth_grant_revoked` trigger (migration 0016) sends a grant's id when it
    /// is revoked or deleted.
    public static let notificationChannel = "postern_grants"

    /// Where invalidations stand now: take it before reading the database, hand it to ``store(_:jti:since:now:)``.
    func generation() -> UInt64 {
        state.withLock { $0.generation }
    }

    /// The live grant of `jti` kept here, if any and not expired at `now`.
    func record(jti: String, now: Int64) -> OAuthGrantRecord? {
        state.withLock { state in
            guard let record = state.byJTI[jti] else { return nil }
            guard record.isLive(at: now) else {
                Self.remove(jti: jti, grantID: record.grantID, from: &state)
                return nil
            }
            return record
        }
    }

    /// Keeps `record` for `jti`, unless anything was invalidated since `generation` was taken.
    func store(_ record: OAuthGrantRecord, jti: String, since generation: UInt64, now: Int64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            // Making room when full drops the grants no longer live, then all (``ExpiringEntries``): the index by grant
            // is then made again from what is left.
            if state.byJTI.insert(record, for: jti, now: now) {
                state.jtisByGrant = Dictionary(
                    grouping: state.byJTI.entries, by: \.value.grantID
                ).mapValues { Set($0.map(\.key)) }
            } else {
                state.jtisByGrant[record.grantID, default: []].insert(jti)
            }
        }
    }

    /// A grant revoked on this instance: dropped at once (``invalidate(grantID:)``).
    public func grantRevoked(_ grantID: String) {
        invalidate(grantID: grantID)
    }

    /// Drops grant `grantID`: its tokens are looked up again (and refused, once revoked) from now on.
    public func invalidate(grantID: String) {
        state.withLock { state in
            state.generation &+= 1
            for jti in state.jtisByGrant.removeValue(forKey: grantID) ?? [] { state.byJTI.removeValue(forKey: jti) }
        }
    }

    /// Drops every grant: revocations may have been missed (a notification listener reconnected).
    public func invalidateAll() {
        state.withLock { state in
            state.generation &+= 1
            state.byJTI.removeAll()
            state.jtisByGrant = [:]
        }
    }

    /// How many tokens are kept (tests).
    public var count: Int { state.withLock { $0.byJTI.count } }

    private static func remove(jti: String, grantID: String, from state: inout State) {
        state.byJTI.removeValue(forKey: jti)
        state.jtisByGrant[grantID]?.remove(jti)
        if state.jtisByGrant[grantID]?.isEmpty == true { state.jtisByGrant[grantID] = nil }
    }
}
