import JSON
import Logging
import MailAuth
import SMTPServer

/// The SMTP sandbox listener's sink: AUTH names a Pro user by one of its API tokens, every recipient is accepted,
/// and every message is captured into that user's sandbox, never relayed. A session's identity is the token's id,
/// so that revoking the token stops the session's next transaction.
public struct SandboxDeliverySink: SMTPMailSink {
    let sandbox: MailSandbox
    /// SPF, DKIM and DMARC through the configured resolver (`POSTERN_DNS_RESOLVER`); nil when they are off
    /// (`POSTERN_SANDBOX_MAIL_AUTH=off`): every verdict is then `none` and nothing is looked up.
    let authenticator: MailAuthenticator?
    let logger: Logger

    /// - Parameters:
    ///   - sandbox: where messages are captured, and who a token names.
    ///   - authenticator: SPF, DKIM and DMARC; nil when they are off.
    ///   - logger: where storage failures are logged.
    public init(sandbox: MailSandbox, authenticator: MailAuthenticator?, logger: Logger) {
        self.sandbox = sandbox
        self.authenticator = authenticator
        self.logger = logger
    }

    /// Any user name; the password is a live `tm_pro_` token (MailboxAccounts checks it, by digest, in constant
    /// time); the identity is the token's id. A storage failure answers as a wrong password would, and is logged.
    public func authenticate(username: String, password: String) async -> String? {
        do {
            return try await sandbox.sandboxCredential(apiToken: password)
        } catch {
            logger.error("sandbox authentication failed", metadata: ["error": "\(type(of: error))"])
            return nil
        }
    }

    /// The token `identity` names is unrevoked and its user active. A storage failure says no, and is logged.
    public func isStillAuthenticated(_ identity: String) async -> Bool {
        do {
            return try await sandbox.sandboxOwner(credential: identity) != nil
        } catch {
            logger.error("sandbox credential check failed", metadata: ["error": "\(type(of: error))"])
            return false
        }
    }

    /// The Pro user behind the token `identity` names: a sandbox session follows that user's failure-injection rules
    /// (`/api/user/sandbox/chaos`). A storage failure says none, and is logged.
    public func chaosScope(ofIdentity identity: String) async -> String? {
        do {
            return try await sandbox.sandboxOwner(credential: identity)
        } catch {
            logger.error("sandbox chaos scope failed", metadata: ["error": "\(type(of: error))"])
            return nil
        }
    }

    /// Every address is accepted: the sandbox keeps what a real server would have sent there.
    public func verdict(forRecipient address: String) async -> SMTPRecipientVerdict { .accept }

    /// Captures the message for the authenticated user, the server's `Received:` field on top, with its SPF, DKIM
    /// and DMARC verdicts on the message as the client sent it (the field is not theirs to judge); a full sandbox is
    /// `552 5.2.2`, a message past a MIME limit `554 5.6.0`, anything else the temporary `451`.
    public func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        // The token was good at MAIL FROM; revoked since, the message is not taken either.
        guard let credential = envelope.authenticatedAs,
            let owner = try await sandbox.sandboxOwner(credential: credential)
        else { throw SMTPDeliveryRefusal.noSuchRecipient }
        let verdict = await authenticator?.evaluate(
            data, clientIP: envelope.remoteAddress, mailFrom: envelope.mailFrom, helo: envelope.heloName)
            ?? .unchecked
        do {
            return try await sandbox.captureInSandbox(
                owner: owner, mailFrom: envelope.mailFrom, recipients: envelope.recipients,
                clientIP: envelope.remoteAddress, raw: envelope.traceField + data, authResults: Self.json(verdict))
        } catch SandboxCaptureError.full {
            throw SMTPDeliveryRefusal.mailboxFull
        } catch SandboxCaptureError.unreadable {
            throw SMTPDeliveryRefusal.unreadableContent
        }
    }

    /// `{"spf","dkim","dmarc"}` as RFC 8601 result tokens (the contract's names), with what each was about.
    static func json(_ verdict: MailAuthenticator.Verdict) -> JSONValue {
        .object([
            ("spf", .string(verdict.spf.result.rawValue)), ("dkim", .string(verdict.dkim.rawValue)),
            ("dmarc", .string(verdict.dmarc.result.rawValue)), ("spf_domain", .string(verdict.spf.domain)),
            (
                "dkim_signatures",
                .array(
                    verdict.dkimSignatures.map { signature in
                        .object([
                            ("domain", .string(signature.domain)), ("selector", .string(signature.selector)),
                            ("result", .string(signature.result.rawValue)),
                            ("reason", signature.reason.map(JSONValue.string) ?? .null),
                        ])
                    })
            ),
            ("dmarc_policy", verdict.dmarc.policy.map(JSONValue.string) ?? .null),
            ("from_domain", .string(verdict.dmarc.fromDomain)),
        ])
    }
}
