import Logging
import MailStore
import MailTM
import MailboxAccounts
import ServerKit

extension Surfaces {
    /// The temp-mail APIs agents already call, over Mail.td's accounts and the one mail store (issue 72): mail.tm's
    /// API and its Mercure hub at `POSTERN_MAILTM_PATH`. Returns the renderers of their 404s and 405s.
    static func registerTempMail(
        into router: inout ContextRouter, _ c: PosternConfiguration, mailbox: MailboxService, mail: MailStore,
        clock: @escaping @Sendable () -> Int64, logger: Logger
    ) -> [PosternResponder.UnmatchedRenderer] {
        guard
            let mailTM = MailTMService(
                configuration: c.rateLimits.applied(to: c.mailTM), accounts: mailbox, mail: mail, clock: clock,
                onUnexpectedError: reporter("mailtm", logger))
        else { return [] }
        mailTM.register(into: &router)
        return [PosternResponder.UnmatchedRenderer(prefix: mailTM.pathPrefix) { mailTM.unmatchedResponse($0) }]
    }
}
