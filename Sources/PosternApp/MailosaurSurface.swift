import MailDelivery
import MailSandbox
import MailosaurAPI
import ServerKit

/// Mailosaur's API under `POSTERN_MAILOSAUR_PATH` (issue 85 item 2), over the one store: the operator's token sees the
/// catch-all and every address that holds mail as servers, a Pro user's API token their sandbox (through the Mail.td
/// surface's sandbox, as Mailpit's API finds it).
enum MailosaurSurface {
    /// Adds Mailosaur's routes (none when the path is `off`).
    static func register(into router: inout ContextRouter, _ context: SurfaceContext, sandbox: MailSandbox) {
        var settings = context.configuration.mailosaur
        settings.operatorToken = context.configuration.mailbox.operatorToken
        settings.catchAllAddress = RecipientPolicy.catchAllAddress
        MailosaurAPI(
            configuration: settings, mail: context.mail.store, sandboxes: MailpitSandboxAccess(sandbox: sandbox),
            publicURL: context.identity.baseURL,
            onUnexpectedError: Surfaces.reporter("mailosaur", context.logger)
        ).register(on: &router)
    }
}

/// A Pro user's sandbox for Mailosaur's API, found as Mailpit's API finds it.
extension MailpitSandboxAccess: MailosaurSandboxes {
    func sandboxAddress(apiToken token: String) async throws -> String? {
        try await sandbox(apiToken: token)?.address
    }
}
