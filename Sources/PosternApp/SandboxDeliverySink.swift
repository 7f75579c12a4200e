import Logging
import MailboxAccounts
import SMTPServer

/// The SMTP sandbox listener's sink: AUTH names a Pro user by one of its API tokens, every recipient is accepted,
/// and every message is captured into that user's sandbox, never relayed.
struct SandboxDeliverySink: SMTPMailSink {
    let mailbox: MailboxService
    let logger: Logger

    /// Any user name; the password is a live `tm_pro_` token (MailboxAccounts checks it, by digest, in constant
    /// time). A storage failure answers as a wrong password would, and is logged.
    func authenticate(username: String, password: String) async -> String? {
        do {
            return try await mailbox.sandboxOwner(apiToken: password)
        } catch {
            logger.error("sandbox authentication failed", metadata: ["error": "\(type(of: error))"])
            return nil
        }
    }

    /// Every address is accepted: the sandbox keeps what a real server would have sent there.
    func verdict(forRecipient address: String) async -> SMTPRecipientVerdict { .accept }

    /// Captures the message for the authenticated user; a full sandbox is `552 5.2.2`, a message past a MIME limit
    /// `554 5.6.0`, anything else the temporary `451`.
    func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        guard let owner = envelope.authenticatedAs else { throw SMTPDeliveryRefusal.noSuchRecipient }
        do {
            return try await mailbox.captureInSandbox(
                owner: owner, mailFrom: envelope.mailFrom, recipients: envelope.recipients,
                clientIP: envelope.remoteAddress, raw: data, authResults: nil)
        } catch SandboxCaptureError.full {
            throw SMTPDeliveryRefusal.mailboxFull
        } catch SandboxCaptureError.unreadable {
            throw SMTPDeliveryRefusal.unreadableContent
        }
    }
}
