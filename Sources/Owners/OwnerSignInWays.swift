import Passkeys
import SignInProviders

/// An owner's ways in (issues 54 and 56): ``SignInWays``, the one last-way-in rule of every surface.
typealias OwnerSignInWays = SignInWays

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
