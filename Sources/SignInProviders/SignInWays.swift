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

    /// What unlinking the identity (`issuer`, `subject`) comes to.
    public enum Unlinking: Equatable, Sendable {
        /// The account has no such identity linked (``SignInMessage/notLinked``).
        case notLinked
        /// It is the account's last way in, and stays (``SignInMessage/lastWay``).
        case lastWay
        /// It may go: the linked identity.
        case allowed(SignInIdentity)
    }

    /// Whether the identity (`issuer`, `subject`) is one of these and may be unlinked: the check both surfaces'
    /// "Unlink" makes before it unlinks anything.
    public func unlinking(issuer: String, subject: String) -> Unlinking {
        guard let identity = identities.first(where: { $0.issuer == issuer && $0.subject == subject }) else {
            return .notLinked
        }
        return keepsAWayIn(without: .identity(issuer: issuer, subject: subject)) ? .allowed(identity) : .lastWay
    }

    /// Whether at least one way in is left once `way` is gone.
    public func keepsAWayIn(without way: Way) -> Bool {
        let password = hasPassword && way != .password
        let passkey = passkeys.contains { way != .passkey(id: $0) }
        let identity = identities.contains { way != .identity(issuer: $0.issuer, subject: $0.subject) }
        return password || passkey || identity
    }
}
