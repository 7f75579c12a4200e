import AuthCrypto

/// TOTP (RFC 6238) as Postern uses it: HOTP-SHA1 of the 30-second time step since the Unix epoch, 6 digits, a code
/// of the step before or after accepted as well (§5.2's one step of clock drift), and each step accepted once per
/// account: the last accepted step is kept and any step at or before it is refused, so a code seen over a shoulder or
/// replayed from a log never signs in twice (§5.2: "the verifier MUST NOT accept the second attempt of the same OTP").
///
/// Pure: the caller gives the time (``verify(_:secret:now:lastStep:)``) and stores the step it returns, refusing the
/// code when another request stored that step or a later one first.
public struct TOTP: Sendable, Equatable {
    /// Seconds per time step. Default 30 (RFC 6238's recommendation; every authenticator app's default).
    public var period: Int64 = 30
    /// Digits of a code. Default 6.
    public var digits = 6
    /// Steps either side of now also accepted. Default 1.
    public var window: Int64 = 1

    /// The defaults.
    public init() {}

    /// The time step of `now` (Unix seconds): `floor(now / period)`.
    public func step(at now: Int64) -> Int64 { now >= 0 ? now / period : (now - period + 1) / period }

    /// The code of `secret` at time step `step`.
    public func code(secret: [UInt8], step: Int64) -> String {
        HOTP.code(secret: secret, counter: UInt64(max(step, 0)), digits: digits)
    }

    /// What a typed code came to.
    public enum Verdict: Sendable, Equatable {
        /// The code is the one of this step (store it as the last accepted step).
        case accepted(step: Int64)
        /// The code is right, but for a step already accepted (or older than one): refused.
        case replayed
        /// Not a code of the window (or not `digits` digits).
        case wrong
    }

    /// Checks `code` (spaces ignored) against `secret` at `now`, within ``window`` steps either side, refusing a step
    /// at or before `lastStep` (nil: none accepted yet). Each candidate is compared in constant time.
    public func verify(_ code: String, secret: [UInt8], now: Int64, lastStep: Int64?) -> Verdict {
        let typed = Array(code.utf8.filter { $0 != UInt8(ascii: " ") })
        guard typed.count == digits, typed.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return .wrong
        }
        let current = step(at: now)
        var replayed = false
        for candidate in (current - window)...(current + window) where candidate >= 0 {
            guard constantTimeEquals(Array(self.code(secret: secret, step: candidate).utf8), typed) else { continue }
            if let lastStep, candidate <= lastStep {
                replayed = true
                continue
            }
            return .accepted(step: candidate)
        }
        return replayed ? .replayed : .wrong
    }
}
