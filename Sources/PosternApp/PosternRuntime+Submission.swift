import BufferBudget
import Logging
import MailSignIn
import SMTPServer
import SMTPSubmission
import ServerTLS
import SocketServer

/// The submission listeners' part of the runtime (issue 87): SMTP servers on the loops HTTP, SMTP, IMAP and POP3 share,
/// signing clients in through the one owner of mail credentials and submitting through the one ``Submitter`` JMAP and
/// Mailpit's release use, with SMTP's certificate for TLS.
extension PosternRuntime {
    /// The submission listener (`POSTERN_SUBMISSION_PORT`, with `STARTTLS`) and its implicit-TLS one
    /// (`POSTERN_SUBMISSIONS_PORT`), on the sockets `build` bound, with SMTP's greeting name, limits and certificate
    /// `tls`; each refuses new connections while the runtime drains.
    static func submissionListeners(
        _ configuration: PosternConfiguration, sockets: ListenerSockets, tls: TLSServerContext,
        context: SurfaceContext, signIn owner: MailSignIn, buffers: BufferBudget, draining: DrainFlag,
        group: EventLoopGroup
    ) -> [RuntimeService] {
        guard sockets[.submission] != nil || sockets[.submissions] != nil else { return [] }
        let logger = context.logger
        let sink = SubmissionSink(
            signIn: SubmissionSignInPort(owner: owner),
            submitter: Surfaces.submitter(configuration, mail: context.mail, database: context.database),
            clock: context.clock, logger: logger, onSubmission: context.metrics.smtpSubmission)
        var settings = configuration.submission.serverConfiguration(
            smtp: smtpSettings(
                configuration, port: configuration.submission.listener.port, clock: context.clock, buffers: buffers),
            listenerHost: configuration.listener.host, trustedProxies: configuration.listener.trustedProxies)
        settings.tls = tls
        let ports = [("submission", sockets[.submission], false), ("submissions", sockets[.submissions], true)]
        return ports.compactMap { name, socket, implicitTLS in
            guard let socket else { return nil }
            var served = settings
            served.implicitTLS = implicitTLS
            let server = SMTPServer(
                configuration: served, sink: sink, group: group, logger: logger,
                observer: SMTPTransactionLog.observer(name, metrics: nil, logger: logger), draining: { draining.isSet })
            return .listening(name, server, on: socket, group: group)
        }
    }
}
