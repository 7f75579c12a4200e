import Logging

extension MailDoorSignIn {
    /// One sign-in with a password as IMAP's and POP3's drivers make it: the port's outcome, or nil when the store
    /// failed (logged at error level with the error's type only, never the credentials; the session answers "try
    /// later").
    package func attempt(
        username: String, password: String, client: String, logger: Logger
    ) async -> MailDoorSignInOutcome? {
        await logged(logger) { try await signIn(username: username, password: password, client: client) }
    }

    /// One sign-in with an OAuth access token (IMAP's `OAUTHBEARER`, `XOAUTH2`), likewise.
    package func attempt(
        username: String?, accessToken: String, client: String, logger: Logger
    ) async -> MailDoorSignInOutcome? {
        await logged(logger) { try await signIn(username: username, accessToken: accessToken, client: client) }
    }

    private func logged(
        _ logger: Logger, _ check: () async throws -> MailDoorSignInOutcome
    ) async -> MailDoorSignInOutcome? {
        do {
            return try await check()
        } catch {
            logger.error("mail sign-in failed", metadata: ["error": .string(String(describing: type(of: error)))])
            return nil
        }
    }
}
