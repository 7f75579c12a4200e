import EmailAddresses
import Logging
import MailDelivery
import MailStore
import MailSubmission
import SASL
import SMTPServer

/// The submission listener's side of the SMTP server (RFC 6409, issue 87): a client signs in with the credentials IMAP
/// takes (``SubmissionSignIn``), and each message it sends is a submission of the signed-in mailbox through the one
/// owner of a submission, ``Submitter``, exactly as JMAP's `EmailSubmission/set` makes one:
///
/// 1. `AUTH`: the port's answer; a refused token gets RFC 7628's error JSON naming `mail.send`;
/// 2. `MAIL FROM`: the credential checked again, then a mailbox that sends nothing (a Mail.td account) refused with
///    `550 5.7.1` saying so, then any address but the mailbox's refused with `553 5.7.1`;
/// 3. `RCPT TO`: an address on a domain served here with no mailbox `550 5.1.1`; every other address is taken (the
///    submission decides at the end whether it may leave);
/// 4. the message: parsed once and submitted: the originators (`From` must be the mailbox), the sender rule, the send
///    limits, the size limit and the quota, then in one transaction its copy kept as written in the mailbox's Sent
///    folder (the submission's `emailId`, as JMAP's lands there), local recipients served, others queued or kept in
///    the outbox, and the record. A refusal keeps nothing and answers the ``SubmissionRefusal``'s own code; the reply
///    to an accepted message names the submission's id.
public struct SubmissionSink: SMTPMailSink {
    /// Who signs in.
    public let signInPort: any SubmissionSignIn
    /// The one owner of a submission; its local delivery answers the recipient verdicts and holds the store.
    public let submitter: Submitter
    /// Unix seconds: the stored copy's time and the submission's.
    public let clock: @Sendable () -> Int64
    /// Told of each accepted submission (metrics).
    let onSubmission: @Sendable (Submitted) -> Void
    let logger: Logger

    /// - Parameters:
    ///   - signIn: the port to the one owner of mail credentials.
    ///   - submitter: the one owner of a submission.
    ///   - clock: Unix seconds.
    ///   - logger: store failures at error level (the error's type only, never credentials or message text).
    ///   - onSubmission: told of each accepted submission (metrics); must not block.
    public init(
        signIn: any SubmissionSignIn, submitter: Submitter, clock: @escaping @Sendable () -> Int64, logger: Logger,
        onSubmission: @escaping @Sendable (Submitted) -> Void = { _ in }
    ) {
        self.signInPort = signIn
        self.submitter = submitter
        self.clock = clock
        self.logger = logger
        self.onSubmission = onSubmission
    }

    /// The scope a token needs here, as RFC 7628's error JSON names it.
    static let scope = "mail.send"

    public func signIn(_ credentials: SMTPAuthCredentials, client: String) async -> SMTPSignInOutcome {
        let outcome: SubmissionSignInOutcome
        do {
            switch credentials {
            case .password(let username, let password):
                outcome = try await signInPort.signIn(username: username, password: password, client: client)
            case .bearer(let username, let token):
                outcome = try await signInPort.signIn(username: username, accessToken: token, client: client)
            }
        } catch {
            logger.error("submission sign-in failed", metadata: ["error": .string(String(describing: type(of: error)))])
            return .unavailable
        }
        switch outcome {
        case .signedIn(let mailbox): return .signedIn(SMTPSignIn(identity: mailbox.address, held: mailbox))
        case .refused: return .refused
        case .tokenRefused(let status):
            return .tokenRefused(errorChallenge: BearerSASL.errorChallenge(status, scope: Self.scope))
        case .throttled: return .unavailable
        }
    }

    public func admit(mailFrom: String, as signIn: SMTPSignIn) async -> SMTPSenderVerdict {
        guard let mailbox = signIn.held as? SubmissionMailbox else { return .signInEnded }
        do {
            guard try await mailbox.standing() else { return .signInEnded }
        } catch {
            logger.error(
                "submission standing failed", metadata: ["error": .string(String(describing: type(of: error)))])
            return .refused(Self.unavailable)
        }
        guard mailbox.sends else { return .refused(Self.readOnly(mailbox.address)) }
        guard EmailAddress.same(mailFrom, mailbox.address) else {
            return .refused(SubmissionRefusal.foreignMailFrom(sender: mailbox.address).smtpReply)
        }
        return .accept
    }

    /// Local and existing, or on another domain: taken (the submission decides whether it may leave); on a domain
    /// served here with no such mailbox: `550 5.1.1`.
    public func verdict(forRecipient address: String) async -> SMTPRecipientVerdict {
        switch await submitter.delivery.verdict(forRecipient: address) {
        case .accept, .relayDenied: .accept
        case .unknownLocal: .unknownLocal
        }
    }

    /// Parses the message (the trace field on top) once and submits it, its copy kept in the mailbox's Sent folder in
    /// the submission's one transaction; returns the submission's id.
    /// - Throws: ``SMTPDeliveryRefusal`` for what can never be sent as it is, or must wait (the refusal's own 4xx);
    ///   storage errors as they are (`451`). Nothing is kept when it throws.
    public func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String {
        guard let mailbox = envelope.signIn?.held as? SubmissionMailbox else {
            throw SMTPDeliveryRefusal.reply(Self.unavailable)
        }
        let raw = envelope.traceField + data
        let message: NewMailMessage
        do {
            message = try submitter.delivery.message(raw, envelopeFrom: mailbox.address)
        } catch {
            throw SMTPDeliveryRefusal.unreadableContent
        }
        let request = SubmissionRequest(
            sender: mailbox.address, keepingInSent: message, recipients: envelope.recipients,
            accountID: mailbox.accountID, mailFrom: envelope.mailFrom)
        do {
            let submitted = try await submitter.submit(request, now: clock())
            onSubmission(submitted)
            return submitted.record.id
        } catch let refusal as SubmissionRefusal {
            throw SMTPDeliveryRefusal.reply(refusal.smtpReply)
        } catch MailStoreError.quotaExceeded(address: _) {
            throw SMTPDeliveryRefusal.reply(Self.sentCopyOverQuota)
        }
    }

    /// A mailbox that sends nothing: a Mail.td account, read-only here as on Mail.td.
    static func readOnly(_ address: String) -> SMTPSinkReply {
        SMTPSinkReply(
            550, 7, 1,
            "\(address) is a Mail.td account, which receives mail and sends none (as on Mail.td); send from an agent "
                + "inbox or an owner's inbox instead.")
    }

    /// The store could not answer: try later.
    static let unavailable = SMTPSinkReply(451, 3, 0, "Service unavailable for now, try again later.")

    /// The Sent copy would pass the mailbox's quota.
    static let sentCopyOverQuota = SMTPSinkReply(
        552, 2, 2, "Your mailbox is full: the sent message cannot be kept in Sent. Nothing was sent.")
}
