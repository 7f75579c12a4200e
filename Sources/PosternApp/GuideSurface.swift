import AgentAuth
import HTTP1
import MCPServer
import MailboxAccounts
import OAuthServer
import RemoteHashAuth
import ServerKit

/// The guide for language models, `/llms.txt` (``LLMsDocument``), rendered once from the surfaces' settings.
enum GuideSurface {
    /// Adds `/llms.txt`.
    static func register(
        into router: inout ContextRouter, _ context: SurfaceContext, agent: AgentAuthConfiguration,
        mailbox: MailboxConfiguration, remote: RemoteHashConfiguration, mcp: MCPConfiguration,
        oauth: OAuthConfiguration
    ) {
        let guide = Array(
            LLMsDocument.render(
                baseURL: context.identity.baseURL, agent: agent, mailbox: mailbox, remote: remote,
                smtpAddress: context.smtpAddress, mcp: mcp, oauth: oauth,
                tempMail: TempMailSurface.guideLine(context.configuration, baseURL: context.identity.baseURL),
                imap: context.configuration.imap.guideLine(baseURL: context.identity.baseURL),
                pop3: context.configuration.pop3.guideLine(baseURL: context.identity.baseURL),
                submission: context.configuration.submission.guideLine(baseURL: context.identity.baseURL)
            ).utf8)
        router.add(.GET, "/llms.txt", .immediate { _, _, _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/markdown; charset=utf-8", "Cache-Control": "no-store"],
                body: guide)
        })
    }
}
