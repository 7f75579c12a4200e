import Logging
import MailCX
import MailStore
import MailTM
import MailboxAccounts
import ServerKit
import ServerMetrics

/// The temp-mail APIs agents already call, over Mail.td's accounts and the one mail store (issue 72).
enum TempMailSurface {
    /// Adds mail.tm's API and its Mercure hub at `POSTERN_MAILTM_PATH` and mail.cx's REST API at
    /// `POSTERN_MAILCX_PATH`, both over Mail.td's `accounts`, and mail.cx's `/api/ws` (always); returns the renderers of
    /// their 404s and 405s.
    static func register(into router: inout ContextRouter, _ context: SurfaceContext, accounts: MailboxAccountService)
        -> [PosternResponder.UnmatchedRenderer]
    {
        let (c, mail, clock, logger) = (context.configuration, context.mail.store, context.clock, context.logger)
        var unmatched: [PosternResponder.UnmatchedRenderer] = []
        // mail.cx's live messages at /api/ws, served whatever its REST path is, as they were by Mail.td's surface.
        MailCXSocketController(accounts: accounts, mail: mail, clock: clock).register(on: &router)
        if let mailTM = MailTMService(
            configuration: c.rateLimits.applied(to: c.mailTM), accounts: accounts, mail: mail, clock: clock,
            onUnexpectedError: Surfaces.reporter("mailtm", logger))
        {
            mailTM.register(into: &router)
            unmatched.append(.init(prefix: mailTM.pathPrefix) { mailTM.unmatchedResponse($0) })
        }
        if let mailCX = MailCXService(
            configuration: c.rateLimits.applied(to: c.mailCX), accounts: accounts, mail: mail, clock: clock,
            onUnexpectedError: Surfaces.reporter("mailcx", logger))
        {
            mailCX.register(into: &router)
            unmatched.append(.init(prefix: mailCX.pathPrefix) { mailCX.unmatchedResponse($0) })
        }
        return unmatched
    }

    /// The `/llms.txt` list line of the temp-mail APIs served: where each client's base URL points and how mail.cx's
    /// implicit mailboxes are configured (its domains and retention, or, with no domain, that every address is
    /// refused until `POSTERN_MAILCX_DOMAINS` names one); empty when neither is served.
    static func guideLine(_ c: PosternConfiguration, baseURL: String) -> String {
        var doors: [String] = []
        if let path = c.mailTM.basePath {
            doors.append("mail.tm's API at \(baseURL)\(path) (its Mercure hub at \(baseURL)\(path)/.well-known/mercure)")
        }
        if let path = c.mailCX.basePath {
            let cx = c.mailCX
            doors.append(
                cx.domains.isEmpty
                    ? "mail.cx's REST API at \(baseURL)\(path), which serves no domain on this server: every address "
                        + "is 403 domain_not_allowed until the operator names domains in POSTERN_MAILCX_DOMAINS"
                    : "mail.cx's REST API at \(baseURL)\(path) (POSTERN_MAILCX_DOMAINS: any address of "
                        + "\(cx.domains.joined(separator: ", ")) is a mailbox with no account that whoever knows the "
                        + "address reads, its mail kept \(cx.retentionSeconds) s; GET \(baseURL)\(path)/config "
                        + "lists them)")
        }
        guard !doors.isEmpty else { return "" }
        return "- Temp-mail APIs: give a mail.tm or mail.cx client one of these as its base URL, nothing else changes: "
            + doors.joined(separator: "; ") + "."
    }

    /// mail.cx's retention: the mail of its implicit mailboxes pruned once older than
    /// `POSTERN_MAILCX_RETENTION_SECONDS`, by the clock the runtime is given, through the store's one retention.
    static func retention(
        _ c: PosternConfiguration, mail: MailStore, metrics: PosternMetrics, clock: @escaping @Sendable () -> Int64,
        logger: Logger
    ) -> RuntimeService {
        .repeating("mail.cx retention", every: c.mailCX.purgeInterval, logger: logger) {
            let pruned = try await mail.prune(
                olderThan: c.mailCX.retentionSeconds, onDomains: c.mailCX.domains, now: clock())
            metrics.mailPruned(pruned)
        }
    }
}
