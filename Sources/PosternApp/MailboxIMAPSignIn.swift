import Directory
import IMAPServer
import MailboxAccounts

/// IMAP's sign-in port over the Mail.td surface: a Mail.td account's address and password, by `POST /api/token`'s
/// very check (the same cost whether the address exists or not); the directory gives the account's quota.
struct MailboxIMAPSignIn: IMAPSignIn {
    let surface: MailboxService
    let directory: LocalDirectory

    func signIn(username: String, password: String, client: String) async throws -> IMAPSignInOutcome {
        guard let (_, address) = try await surface.signInAccount(address: username, password: password),
            case .local(let recipient) = try await directory.resolve(address)
        else { return .refused }
        return .signedIn(IMAPMailboxHolder(address: recipient.address, quota: recipient.quota))
    }
}
