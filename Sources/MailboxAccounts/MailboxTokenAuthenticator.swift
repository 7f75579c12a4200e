import Directory

/// A Mail.td account's mailbox token as a mail API's bearer (issue 72's one store: JMAP reads the same account that
/// Mail.td, mail.tm and mail.cx serve): a live mailbox token opens its own account's mailbox, with `mail.read` only.
///
/// Rules, in the order they run:
/// 1. Anything but a correctly signed, unexpired mailbox JWT (a Pro JWT, a Pro API token, another surface's token) is
///    no principal of this kind: nil, so that the chain asks no more and the API answers 401.
/// 2. The token must still hold (the Mail.td rule: its account live, its epoch current, so a password reset or the
///    account's deletion ends it at once); otherwise nil.
/// 3. The account's address must be a local mailbox in `directory` now, this account's (an account left on a custom
///    domain its Pro user no longer holds is not); otherwise nil.
/// 4. The principal is the account (its id the JMAP accountId) with `mail.read`: a Mail.td account receives and never
///    sends, so `EmailSubmission/set` is refused to it as to a read-only grant.
/// Storage errors are thrown (the API answers 503 or 500, never 401).
public struct MailboxTokenAuthenticator: PrincipalAuthenticator {
    let authorizer: MailboxAuthorizer
    let directory: any AccountDirectory

    /// - Parameters:
    ///   - accounts: Mail.td's accounts, owner of their tokens.
    ///   - directory: where the account's address must still be a local mailbox.
    public init(accounts: MailboxAccountService, directory: any AccountDirectory) {
        self.authorizer = accounts.authorizer
        self.directory = directory
    }

    /// The account a live mailbox token opens, with `mail.read`; nil for any other bearer.
    /// - Throws: storage errors.
    public func principal(for credentials: Credentials) async throws -> Principal? {
        let bearer = authorizer.classify(credentials.bearerToken)
        guard case .mailbox = bearer else { return nil }
        let principal: MailboxPrincipal?
        do {
            principal = try await authorizer.principal(bearer)
        } catch let error as MailboxError where error == .invalidOrExpiredToken {
            return nil
        }
        guard case .account(let account)? = principal,
            case .local(let mailbox) = try await directory.resolve(account.address), mailbox.accountID == account.id
        else { return nil }
        return Principal(accountID: account.id, mailbox: mailbox, permissions: .read)
    }
}
