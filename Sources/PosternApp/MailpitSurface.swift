import MailDelivery
import MailSandbox
import MailStore
import MailpitAPI
import ServerKit

/// Mailpit's API v1 under `POSTERN_MAILPIT_PATH` (issue 71), over the one store: the operator's token sees every
/// address, a Pro user's API token their sandbox (through the Mail.td surface's sandbox); the operator's `send` goes
/// through local delivery as SMTP would; its chaos triggers are the failure-injection engine's rules (when on), and its
/// release goes through the outbound queue (when outbound delivery is on).
enum MailpitSurface {
    /// Adds Mailpit's routes (none when the path is `off`).
    static func register(into router: inout ContextRouter, _ context: SurfaceContext, sandbox: MailSandbox) {
        var settings = context.configuration.mailpit
        settings.operatorToken = context.configuration.mailbox.operatorToken
        settings.version = PosternVersion.text
        MailpitAPI(
            configuration: settings, mail: context.mail.store, sandboxes: MailpitSandboxAccess(sandbox: sandbox),
            receiving: MailpitLocalReceiving(delivery: context.mail.delivery), links: context.fetcher,
            chaos: context.chaos.map { MailpitChaosEngine(chaos: $0) }, relay: relay(context), clock: context.clock,
            onUnexpectedError: Surfaces.reporter("mailpit", context.logger)
        ).register(on: &router)
    }

    /// The submission owner `release` sends through; nil when outbound delivery is off (`POSTERN_OUTBOUND_DELIVERY`).
    static func relay(_ context: SurfaceContext) -> MailpitOutboundRelay? {
        guard context.configuration.outbound.mode != .off else { return nil }
        return MailpitOutboundRelay(
            submitter: Surfaces.submitter(context.configuration, mail: context.mail, database: context.database),
            clock: context.clock)
    }
}

/// Pro users' sandboxes for the Mailpit API: a live API token names its user's sandbox (made on first use, as the
/// sandbox's SMTP listener makes it), and `send` captures as that listener does.
struct MailpitSandboxAccess: MailpitSandboxes {
    let sandbox: MailSandbox

    func sandbox(apiToken token: String) async throws -> MailpitSandbox? {
        guard let credential = try await sandbox.sandboxCredential(apiToken: token),
            let owner = try await sandbox.sandboxOwner(credential: credential),
            let address = try await sandbox.sandboxAddress(proUserID: owner)
        else { return nil }
        return MailpitSandbox(address: address, owner: owner)
    }

    func capture(raw: [UInt8], mailFrom: String, recipients: [String], in target: MailpitSandbox) async throws
        -> String
    {
        do {
            return try await sandbox.captureInSandbox(
                owner: target.owner, mailFrom: mailFrom, recipients: recipients, clientIP: "127.0.0.1", raw: raw,
                authResults: nil)
        } catch is SandboxCaptureError {
            throw MailpitReceivingError.refused
        }
    }
}

/// The operator's `send`: local delivery, as the SMTP listener hands it a message (its recipients' verdicts and the
/// catch-all).
struct MailpitLocalReceiving: MailpitReceiving {
    let delivery: LocalDelivery

    func receive(raw: [UInt8], mailFrom: String, recipients: [String]) async throws -> [String] {
        do {
            return [try await delivery.store(MailEnvelope(mailFrom: mailFrom, recipients: recipients), data: raw)]
        } catch LocalDeliveryError.noLocalRecipient {
            throw MailpitReceivingError.noLocalRecipient
        } catch is LocalDeliveryError {
            throw MailpitReceivingError.refused
        }
    }
}
