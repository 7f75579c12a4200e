/// A device code's life (RFC 8628 sections 3.4 and 3.5) as a pure machine: the store reads a row into this, asks
/// it what a poll or an owner's answer does, and writes back what changed (only if nobody changed the row meanwhile).
/// Time is the caller's `now`; every rule of the grant's state lives here.
///
/// A code is pending until the owner approves or denies it, or it expires. A poll of a pending code sooner than its
/// interval after the previous poll is `slow_down`, which adds ``slowDownStep`` seconds to that code's interval
/// (section 3.5); an approved code is redeemed once, and every later poll is refused.
public struct OAuthDeviceCodeState: Sendable, Equatable {
    /// Seconds added to a code's interval at each `slow_down` (RFC 8628 section 3.5).
    public static let slowDownStep: Int64 = 5

    /// The code dies at this time, Unix seconds.
    public var expiresAt: Int64
    /// The least number of seconds between two polls.
    public var interval: Int64
    /// When the device last polled, Unix seconds; nil before its first poll.
    public var lastPolledAt: Int64?
    /// The grant the owner approved, if they did.
    public var grantID: String?
    /// Whether the owner denied it (or revoked the grant it approved before the device redeemed it).
    public var denied: Bool
    /// Whether the device has redeemed it for tokens.
    public var redeemed: Bool

    /// A state as stored.
    public init(
        expiresAt: Int64, interval: Int64, lastPolledAt: Int64? = nil, grantID: String? = nil, denied: Bool = false,
        redeemed: Bool = false
    ) {
        self.expiresAt = expiresAt
        self.interval = interval
        self.lastPolledAt = lastPolledAt
        self.grantID = grantID
        self.denied = denied
        self.redeemed = redeemed
    }

    /// What a poll of the token endpoint gets.
    public enum Poll: Sendable, Equatable {
        /// `authorization_pending`: the owner has not answered yet.
        case pending
        /// `slow_down`: polled sooner than the interval; the code's interval is now `interval`.
        case slowDown(interval: Int64)
        /// Tokens: the owner approved grant `grantID`; redeem it (once).
        case approved(grantID: String)
        /// `access_denied`.
        case denied
        /// `expired_token`.
        case expired
        /// `invalid_grant`: redeemed already.
        case redeemed
    }

    /// A poll at `now`: the answer, and the state changed as it says (the poll time, a longer interval).
    /// Checked in this order: redeemed, expired, denied, approved, too soon, pending; a code the owner answered is
    /// answered at once, however soon the poll.
    public mutating func poll(now: Int64) -> Poll {
        if redeemed { return .redeemed }
        if now >= expiresAt { return .expired }
        if denied { return .denied }
        defer { lastPolledAt = now }
        if let grantID { return .approved(grantID: grantID) }
        if let last = lastPolledAt, now - last < interval {
            interval += Self.slowDownStep
            return .slowDown(interval: interval)
        }
        return .pending
    }

    /// Whether the owner may still answer at `now`: pending and unexpired.
    public func answerable(now: Int64) -> Bool {
        !redeemed && !denied && grantID == nil && now < expiresAt
    }

    /// The owner approves with grant `grantID`; false (and nothing changed) unless ``answerable(now:)``.
    public mutating func approve(grantID: String, now: Int64) -> Bool {
        guard answerable(now: now) else { return false }
        self.grantID = grantID
        return true
    }

    /// The owner denies; false (and nothing changed) unless ``answerable(now:)``.
    public mutating func deny(now: Int64) -> Bool {
        guard answerable(now: now) else { return false }
        denied = true
        return true
    }

    /// The device redeems the approved code; false (and nothing changed) unless it is approved, unredeemed, not
    /// denied and unexpired.
    public mutating func redeem(now: Int64) -> Bool {
        guard grantID != nil, !redeemed, !denied, now < expiresAt else { return false }
        redeemed = true
        return true
    }
}
