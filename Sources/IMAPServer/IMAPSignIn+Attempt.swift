import Logging

extension IMAPSignIn {
    /// One sign-in as IMAP's and POP3's drivers make it: the port's outcome, or nil when the store failed (logged at
    /// error level with the error's type only, never the credentials; the session answers "try later").
    func attempt(username: String, password: String, client: String, logger: Logger) async -> IMAPSignInOutcome? {
        do {
            return try await signIn(username: username, password: password, client: client)
        } catch {
            logger.error("mail sign-in failed", metadata: ["error": .string(String(describing: type(of: error)))])
            return nil
        }
    }
}
