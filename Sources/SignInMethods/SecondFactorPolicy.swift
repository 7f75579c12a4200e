/// When a family asks for a second factor at sign-in (issue 88 item 3), one setting per surface
/// (`POSTERN_OWNER_SECOND_FACTOR`). A passkey sign-in never asks: a passkey is already two factors (the device and its
/// unlock), as every policy here agrees.
public enum SecondFactorPolicy: String, CaseIterable, Sendable {
    /// No second factor: none is asked for and none can be set up.
    case off
    /// Who set one up is asked for a code after a password sign-in; a provider's sign-in is not asked (the provider
    /// has its own). The default.
    case optional
    /// Every password sign-in needs a code: who has no second factor sets one up before their session opens.
    case requiredForPasswords = "required-for-passwords"
    /// Every sign-in but a passkey's needs a code (a password's and a provider's): who has none sets one up first.
    case requiredExceptPasskeys = "required-except-passkeys"

    /// What a sign-in by `first` asks for next.
    public enum Step: Equatable, Sendable {
        /// Nothing: the session opens.
        case none
        /// A code (TOTP or a recovery code).
        case code
        /// Setting up a second factor, confirmed with a first code, then the session opens.
        case setUp
    }

    /// The step after a sign-in by `first`, for a person whose second factor is on (`enrolled`) or not.
    public func step(after first: AuthenticationMethods, enrolled: Bool) -> Step {
        guard !first.contains(.passkey) else { return .none }
        let required: Bool
        switch self {
        case .off: return .none
        case .optional: required = false
        case .requiredForPasswords: required = first.contains(.password)
        case .requiredExceptPasskeys: required = true
        }
        if enrolled { return first.contains(.password) || required ? .code : .none }
        return required ? .setUp : .none
    }
}
