/// When a device polls the token endpoint next (RFC 8628 section 3.5), as a pure machine: each answer without tokens
/// says wait the interval (`authorization_pending`), wait 5 s longer from now on (`slow_down`), or stop (anything
/// else); polling stops too once the device code's lifetime would be over before the next poll.
public struct DevicePollSchedule: Sendable, Equatable {
    /// Why polling stopped without tokens.
    public enum Stop: Sendable, Equatable {
        /// `access_denied`: the owner said no.
        case denied
        /// `expired_token`, or the lifetime ran out while waiting.
        case expired
        /// Any other error code (`invalid_grant`, `invalid_client`, ...), with its description.
        case refused(code: String, description: String?)
    }

    /// What to do after an answer.
    public enum Next: Sendable, Equatable {
        case wait(seconds: Int)
        case stop(Stop)
    }

    /// The current interval, seconds (RFC 8628's default 5 when the server named none).
    public private(set) var interval: Int
    /// Seconds left of the device code's lifetime.
    public private(set) var remaining: Int

    /// - Parameters:
    ///   - interval: the device authorization response's `interval` (nil: 5).
    ///   - expiresIn: its `expires_in`.
    public init(interval: Int?, expiresIn: Int) {
        self.interval = max(interval ?? 5, 1)
        remaining = expiresIn
    }

    /// The first wait, before the first poll.
    public mutating func first() -> Next { advance() }

    /// What to do after the token endpoint answered the error `code`.
    public mutating func next(afterError code: String, description: String? = nil) -> Next {
        switch code {
        case "authorization_pending": return advance()
        case "slow_down":
            interval += 5
            return advance()
        case "access_denied": return .stop(.denied)
        case "expired_token": return .stop(.expired)
        default: return .stop(.refused(code: code, description: description))
        }
    }

    private mutating func advance() -> Next {
        guard remaining >= interval else { return .stop(.expired) }
        remaining -= interval
        return .wait(seconds: interval)
    }
}
