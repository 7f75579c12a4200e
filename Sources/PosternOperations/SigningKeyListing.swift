import Audit
import JSON
import ServerKit
import SigningKeys
import Time

/// `postern keys list`'s lines: one a key, with its state in words. The stores list the keys they hold; a key killed
/// with `postern keys retire --now` is gone from its store at once, so its line comes from the audit trail's
/// `keys.retired` event (kept `POSTERN_AUDIT_DAYS`), which records its algorithm and creation time.
enum SigningKeyListing {
    /// A key's state, as `keys list` words it.
    enum State: Equatable {
        /// The key signs new tokens (and verifies).
        case signing
        /// Published (in the JWKS, verifying) but signing only from this time: a PostgreSQL rotation's promotion delay.
        case signsFrom(Int64)
        /// Rotated out: signs nothing, still verifies the tokens it signed until this time, then leaves the set.
        case verifyingUntil(Int64)
        /// Rotated out and past its tokens' lifetime since this time: verifies nothing; dropped at the next reload.
        case retired(Int64)
        /// Retired with `--now` at this time: every token it signed is refused; it is no longer stored.
        case killed(Int64)

        /// `signing`, `signs from T`, `verifying until T`, `retired at T`, `killed at T` (T in RFC 3339).
        var words: String {
            switch self {
            case .signing: "signing"
            case .signsFrom(let time): "signs from \(SigningKeyListing.time(time))"
            case .verifyingUntil(let time): "verifying until \(SigningKeyListing.time(time))"
            case .retired(let time): "retired at \(SigningKeyListing.time(time))"
            case .killed(let time): "killed at \(SigningKeyListing.time(time))"
            }
        }
    }

    /// The state of a key its store still holds, at `now`.
    static func state(of key: KeyInfo, now: Int64) -> State {
        if key.isActive { return .signing }
        if let drops = key.dropsAt { return drops > now ? .verifyingUntil(drops) : .retired(drops) }
        if let retired = key.retiredAt { return .retired(retired) }
        return .signsFrom(key.signsFrom ?? now)
    }

    /// `kid  RS256  signing  created T  data-directory`.
    static func line(_ key: KeyInfo, now: Int64) -> String {
        "\(key.kid)  \(key.algorithm.rawValue)  \(state(of: key, now: now).words)  created \(time(key.createdAt))"
            + "  \(key.source.rawValue)"
    }

    /// The details a `keys.retired` event keeps of the key it killed, for its later line.
    static func killedDetails(_ key: KeyInfo?) -> KeyValuePairs<String, String> {
        guard let key else { return [:] }
        return ["algorithm": key.algorithm.rawValue, "created_at": String(key.createdAt)]
    }

    /// The lines of the keys `events` (the trail's `keys.retired` events) killed, oldest first, but those of `held`
    /// (kids a store still holds): `kid  RS256  killed at T  created T` (`-` for what an older event did not record).
    static func killedLines(_ events: [AuditEvent], held: Set<String>) -> [String] {
        var seen = held
        return events.sorted { $0.time < $1.time }.compactMap { event in
            guard seen.insert(event.target).inserted else { return nil }
            let details = event.details.flatMap { try? JSONValue.parse(Array($0.utf8)) }
            let algorithm = details?["algorithm"]?.stringValue ?? "-"
            let created = details?["created_at"]?.stringValue.flatMap { Int64($0) }.map(time) ?? "-"
            return "\(event.target)  \(algorithm)  \(State.killed(event.time).words)  created \(created)"
        }
    }

    /// RFC 3339 in UTC, to the second.
    static func time(_ seconds: Int64) -> String { RFC3339.format(seconds) }
}
