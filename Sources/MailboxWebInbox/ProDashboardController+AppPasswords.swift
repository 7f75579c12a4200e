import AppPasswords
import Audit
import HTTP1
import ServerKit
import WebInbox

/// The Pro dashboard's app passwords (issue 87 item 2): `POST /inbox/dashboard/app-passwords` (`name`, `account`, one
/// `door` or more of `imap`, `pop3`) makes one for an account the user owns, only on a session signed in within
/// `POSTERN_OWNER_FRESH_PROOF_SECONDS` (else a 303 to ``WebInboxService/proofPath``, nothing made); `POST
/// .../app-passwords/{id}/revoke` revokes one of theirs. Both on the operator's trail with the Pro user as the actor.
extension ProDashboardController {
    /// `POST .../app-passwords`.
    func createAppPassword(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        guard let store = appPasswords else { return Call.notFound() }
        guard try await inbox.freshlyProven(call) else { return HTMLPage.redirect(to: WebInboxService.proofPath) }
        let fields = call.request.formFields()
        let address = fields["account"] ?? ""
        return try await answer(call) {
            guard let accountID = try await port.surface.accounts.accountID(address: address, proUserID: call.proUserID)
            else { return WebInboxFlash.error("Choose one of your accounts.") }
            // A Mail.td account sends nothing: IMAP and POP3 only.
            guard let doors = AppPasswordDoors(names: call.request.formValues("door")), !doors.contains(.submission)
            else { return WebInboxFlash.error("Tick IMAP, POP3 or both.") }
            do {
                let (password, secret) = try await store.create(
                    holder: .proUser(call.proUserID), accountID: accountID, address: address,
                    name: fields["name"] ?? "", doors: doors, now: port.surface.accounts.now())
                await port.surface.accounts.recordPro(
                    call.proUserID, .appPasswordCreated, target: password.id, clientAddress: call.client)
                return WebInboxFlash(
                    PageNotice("App password made. Copy it now: it is shown this once.", .success), appPassword: secret)
            } catch AppPasswordStore.CreationError.invalidName {
                return WebInboxFlash.error("Give it a name of one line, at most \(AppPasswordStore.maxNameLength) characters.")
            } catch AppPasswordStore.CreationError.tooMany {
                return WebInboxFlash.error("You have the most app passwords one may have: revoke one first.")
            }
        }
    }

    /// `POST .../app-passwords/{id}/revoke`.
    func revokeAppPassword(_ call: Call, _ port: MailboxProDashboard) async throws -> HTTPResponse {
        guard let store = appPasswords, try await store.revoke(id: call.id, holder: .proUser(call.proUserID)) else {
            return Call.notFound()
        }
        await port.surface.accounts.recordPro(
            call.proUserID, .appPasswordRevoked, target: call.id, clientAddress: call.client)
        return try await answer(call) { WebInboxFlash.success("App password revoked: it opens nothing from now on.") }
    }
}
