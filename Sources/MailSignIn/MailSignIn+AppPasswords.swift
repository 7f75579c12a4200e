import AppPasswords
import Directory
import EmailAddresses

/// App passwords at the mail doors (issue 87 item 2): the one inbox an app password was made for, at the doors it was
/// made for (IMAP, POP3, submission), while its holder still holds that inbox. Checked only here, in
/// ``signIn(at:username:password:client:)``: no web sign-in, no OAuth endpoint and no JMAP bearer check asks the app
/// passwords' store, so an app password opens nothing else.
extension MailSignIn {
    /// What an app password found by its digest came to.
    struct AppPasswordOpening {
        let password: AppPassword
        /// The mailbox it opens here; nil when refused (another door, another name, an inbox no longer held).
        let mailbox: Mailbox?
    }

    /// The mailbox `password` (found by the typed secret's digest) opens at `door` for `username`; nil when it opens
    /// none here.
    /// - Throws: storage errors.
    func appPasswordMailbox(_ password: AppPassword, door: Door, username: String) async throws -> Mailbox? {
        guard EmailAddress.same(password.address, username), password.doors.contains(door.appPasswordDoor),
            let store = appPasswords, let (address, quota) = try await heldInbox(password)
        else { return nil }
        let standing: Standing = { [self] in
            // The row again, by its id (a revoked one is deleted), and the holding: a revoke or a let-go ends it.
            guard try await store.exists(id: password.id), try await heldInbox(password) != nil else {
                return .credentialRevoked
            }
            return nil
        }
        // An owner's inbox sends as its owner may; a Mail.td account sends nothing, as on Mail.td.
        let sends: Bool = if case .owner = password.holder { password.doors.contains(.submission) } else { false }
        return Mailbox(address: address, quota: quota, standing: standing, accountID: password.accountID, sends: sends)
    }

    /// The address and quota of the inbox `password` was made for, while its holder holds it and it is served here.
    private func heldInbox(_ password: AppPassword) async throws -> (address: String, quota: Int64)? {
        switch password.holder {
        case .owner(let ownerID):
            guard let principal = try await owners.principals.principal(ownerID: ownerID, address: password.address),
                principal.accountID == password.accountID
            else { return nil }
            return (principal.mailbox.address, principal.mailbox.quota)
        case .proUser(let userID):
            // The Mail.td account by its id (one made again at the address is another), while the Pro user is active
            // and owns it.
            guard try await accounts.accountID(address: password.address, proUserID: userID) == password.accountID,
                case .local(let recipient) = try await directory.resolve(password.address)
            else { return nil }
            return (recipient.address, recipient.quota)
        }
    }
}

extension MailSignIn.Door {
    /// The app passwords' bit of this door.
    var appPasswordDoor: AppPasswordDoors {
        switch self {
        case .imap: .imap
        case .pop3: .pop3
        case .submission: .submission
        }
    }
}
