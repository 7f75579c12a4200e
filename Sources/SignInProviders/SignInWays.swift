/// The ways an account signs in (issues 54 and 56), an owner's or a Pro user's: their password, their passkeys that
/// still sign in (one marked as possibly cloned does not) and their linked provider identities. The one rule over all
/// three: no change leaves an account with none, so unlinking a provider, removing a passkey and removing the password
/// each ask ``keepsAWayIn(without:)`` first.
public struct SignInWays: Equatable, Sendable {
    /// One way in, as the change that would take it away names it.
    public enum Way: Equatable, Sendable {
        case password
        case passkey(id: String)
        case identity(issuer: String, subject: String)
    }

    public var hasPassword: Bool
    /// The ids of the passkeys that sign in.
    public var passkeys: [String]
    /// The linked identities.
    public var identities: [SignInIdentity]

    /// Memberwise.
    public init(hasPassword: Bool, passkeys: [String], identities: [SignInIdentity]) {
        self.hasPassword = hasPassword
        self.passkeys = passkeys
        self.identities = identities
    }

    /// Whether at least one way in is left once `way` is gone.
    public func keepsAWayIn(without way: Way) -> Bool {
        let password = hasPassword && way != .password
        let passkey = passkeys.contains { way != .passkey(id: $0) }
        let identity = identities.contains { way != .identity(issuer: $0.issuer, subject: $0.subject) }
        return password || passkey || identity
    }
}
