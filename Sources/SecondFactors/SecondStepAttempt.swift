import BrowserPages

/// What a code typed at a family's second step came to (issue 88 item 3), decided once for every family: the code
/// checked under the sign-in backoff (``SignInThrottle``: a password that passed does not reset it, so knowing the
/// password buys no more guesses at the code), as a code of a factor that is on, or as the first code of one being set
/// up at sign-in (the policy requires one and the person had none).
public enum SecondStepAttempt: Sendable, Equatable {
    /// Too many failures: wait `retryAfter` seconds (429 with `Retry-After`); the code was not checked.
    case slowed(retryAfter: Int64)
    /// Refused: a wrong code, or (`replayed`) a right code of a step already accepted.
    case refused(replayed: Bool)
    /// Accepted: a TOTP code or a recovery code (`used`); `recoveryCodes` when the code turned on a factor set up at
    /// sign-in, whose new recovery codes are shown this once.
    case passed(used: SecondFactorStore.Check, recoveryCodes: [String]?)

    /// The refusal's reason on the audit trail (`slowed`, `code_replayed`, `wrong_code`); nil when it passed. Never
    /// the code typed.
    public var refusalReason: String? {
        switch self {
        case .slowed: "slowed"
        case .refused(let replayed): replayed ? "code_replayed" : "wrong_code"
        case .passed: nil
        }
    }

    /// What was used, as the sign-in's audit details name it: `recovery_code` or `totp`.
    public var usedName: String {
        if case .passed(.recoveryCode, _) = self { "recovery_code" } else { "totp" }
    }
}

extension SecondFactorStore {
    /// Checks `code` of `holder` at their second step under `throttle` (by `keys`, at `now`): with their factor on, a
    /// TOTP code once or a recovery code once (``check(holder:code:)``); without, the first code of the secret
    /// waiting (``confirm(holder:code:)``).
    /// - Throws: storage and sealing errors.
    public func secondStep(
        holder: String, code: String, throttle: SignInThrottle, keys: SignInThrottle.Keys, now: Int64
    ) async throws -> SecondStepAttempt {
        let enrolled = try await state(holder: holder).isOn
        var check = Check.wrong
        var recoveryCodes: [String]?
        let attempt = try await throttle.attempt(keys, now: now) {
            if enrolled {
                check = try await self.check(holder: holder, code: code)
                return check == .totp || check == .recoveryCode
            }
            recoveryCodes = try await confirm(holder: holder, code: code)
            return recoveryCodes != nil
        }
        switch attempt {
        case .slowed(let retryAfter): return .slowed(retryAfter: retryAfter)
        case .failed: return .refused(replayed: check == .replayed)
        case .passed: return .passed(used: recoveryCodes == nil ? check : .totp, recoveryCodes: recoveryCodes)
        }
    }
}
