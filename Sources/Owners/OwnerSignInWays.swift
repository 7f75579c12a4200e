import Passkeys
import SignInProviders

/// The ways an owner signs in (issues 54 and 56): their password, their passkeys that still sign in (one marked as
/// possibly cloned does not) and their linked provider identities. The one rule over all three: no change leaves an
/// owner with none, so unlinking a provider, removing a passkey and removing the password each ask
/// ``keepsAWayIn(without:)`` first.
struct OwnerSignInWays: Equatable {
    /// One way in, as the change that would take it away names it.
    enum Way: Equatable {
        case password
        case passkey(id: String)
        case identity(issuer: String, subject: String)
    }

    var hasPassword: Bool
    /// The ids of the passkeys that sign in.
    var passkeys: [String]
    /// The linked identities, as (issuer, subject).
    var identities: [SignInIdentity]

    /// Whether at least one way in is left once `way` is gone.
    func keepsAWayIn(without way: Way) -> Bool {
        let password = hasPassword && way != .password
        let passkey = passkeys.contains { way != .passkey(id: $0) }
        let identity = identities.contains { way != .identity(issuer: $0.issuer, subject: $0.subject) }
        return password || passkey || identity
    }
}

extension OwnerService {
    /// `owner`'s ways in, read now.
    /// - Throws: storage errors.
    func signInWays(of ownerID: String) async throws -> OwnerSignInWays {
        let passkeys = try await passkeyStore?.credentials(of: .owner(ownerID)) ?? []
        return OwnerSignInWays(
            hasPassword: try await owners.hasPassword(ownerID: ownerID),
            passkeys: passkeys.filter { $0.clonedAt == nil }.map(\.id),
            identities: try await identities?.identities(surface: .owners, account: ownerID) ?? [])
    }
}
