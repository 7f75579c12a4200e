import Audit
import BrowserPages
import ClientAddress
import Directory
import IMAPServer
import MailboxAccounts
import WebInbox

/// IMAP's sign-in port over the Mail.td surface: a Mail.td account's address and password, by `POST /api/token`'s
/// very check (the same cost whether the address exists or not), under the web inbox's sign-in backoff on the same
/// keys (a failure at either door slows both), each sign-in and refusal on the audit trail; the directory gives the
/// account's quota.
struct MailboxIMAPSignIn: IMAPSignIn {
    let surface: MailboxService
    let directory: LocalDirectory
    let throttle: SignInThrottle
    let audit: AuditTrail
    let clock: @Sendable () -> Int64

    func signIn(username: String, password: String, client: String) async throws -> IMAPSignInOutcome {
        let keys = WebInboxService.accountKeys(address: username, client: ClientAddressKey(peer: client))
        var opened: (id: String, address: String)?
        let attempt = try await throttle.attempt(keys, now: clock()) {
            opened = try await surface.signInAccount(address: username, password: password)
            return opened != nil
        }
        guard case .passed = attempt, let opened, case .local(let recipient) = try await directory.resolve(opened.address)
        else {
            await record(.mailboxSignInFailed, actor: username, client: client)
            if case .slowed = attempt { return .throttled }
            return .refused
        }
        await record(.mailboxSignIn, actor: opened.id, target: recipient.address, client: client)
        return .signedIn(IMAPMailboxHolder(address: recipient.address, quota: recipient.quota))
    }

    private func record(_ action: AuditAction, actor: String, target: String? = nil, client: String) async {
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .mailbox, actorID: actor, ownerID: nil, action: action, target: target ?? actor,
                clientAddress: client, details: #"{"door":"imap"}"#)
        }
    }
}
