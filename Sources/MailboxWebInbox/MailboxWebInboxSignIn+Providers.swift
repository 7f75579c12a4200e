import MailboxAccounts
import SignInProviders
import WebInbox

/// The web inbox's Pro users port for sign-in providers (issue 54) over the mailbox surface: its link candidates,
/// password-less sign-ups and proven emails, nothing copied.
extension MailboxWebInboxSignIn: WebInboxProAccounts {
    public func normalizedProEmail(_ email: String) -> String? {
        MailboxAccountService.normalizedProEmail(email)
    }

    public func proLinkCandidate(email: String) async throws -> ProviderLinking.Candidate? {
        try await accounts.proUserLinkCandidate(email: email).map(Self.candidate)
    }

    public func proLinkCandidate(id: String) async throws -> ProviderLinking.Candidate? {
        try await accounts.proUserLinkCandidate(id: id).map(Self.candidate)
    }

    public func createProUserWithoutPassword(email: String) async throws -> String? {
        do {
            return try await accounts.createProUserWithoutPassword(email: email).id
        } catch is ProUserCreationError {
            return nil
        }
    }

    public func removeProUserWithoutPassword(id: String) async throws {
        try await accounts.removeProUserWithoutPassword(id: id)
    }

    public func markProUserEmailVerified(id: String, email: String) async throws {
        try await accounts.markProUserEmailVerified(id: id, email: email)
    }

    private static func candidate(_ user: ProUserLinkCandidate) -> ProviderLinking.Candidate {
        (account: user.id, email: user.email, emailVerified: user.emailVerified, hasPassword: user.hasPassword)
    }
}
