import AgentAuth
import JMAP
import MCPServer
import MailboxAccounts
import OAuthServer
import OAuthResource
import RemoteHashAuth

/// `/llms.txt`: one guide for the whole server, a section per API, generated from the live configuration so that
/// every curl line works against this instance. Each surface writes its own section.
enum LLMsDocument {
    /// The document for the surfaces as configured, whose public base URL is `baseURL`; `tempMail` is the list line of
    /// the temp-mail APIs (``TempMailSurface/guideLine(_:baseURL:)``), `imap` IMAP's
    /// (``IMAPListenerConfiguration/guideLine(baseURL:)``), `pop3` POP3's
    /// (``POP3ListenerConfiguration/guideLine(baseURL:)``) and `submission` submission's
    /// (``SubmissionListenerConfiguration/guideLine(baseURL:)``), each empty when not served.
    static func render(
        baseURL: String, agent: AgentAuthConfiguration, mailbox: MailboxConfiguration, remote: RemoteHashConfiguration,
        smtpAddress: String?, mcp: MCPConfiguration, oauth: OAuthConfiguration? = nil, tempMail: String = "",
        imap: String = "", pop3: String = "", submission: String = ""
    ) -> String {
        """
        # Postern

        \(PosternIntro.text) Base URL: \(baseURL)

        - [Agent signup (Atomic Mail compatible)](#agent-signup-atomic-mail-compatible): scrypt proof of work, \
        session and capability JWTs.
        - [Mailbox accounts (Mail.td compatible)](#mailbox-accounts-mailtd-compatible): SHA-256 proof of work, \
        accounts, tokens, messages.
        - [Remote Argon2 registration](#remote-argon2-registration): register an email with a URL serving an Argon2 \
        hash, log in against it.
        - [Mail: receive, read and send](#mail-receive-read-and-send): SMTP into local mailboxes, Mail.td's message \
        endpoints, JMAP for agents.
        - [Using an OAuth access token](#\(OAuthResourceLLMsText.anchor)): an app acting on an owner's inboxes \
        through JMAP, MCP and `/api/v1/agents`.
        - [MCP server (Atomic Mail compatible)](#\(MCPLLMsText.anchor)): an agent inbox's tools for any MCP host, \
        with its API key.
        - [OAuth for apps](#\(OAuthLLMsText.anchor)): owners approve third-party apps (OAuth 2.1, PKCE, rotating \
        refresh tokens, EdDSA access tokens).
        \([tempMail, imap, pop3, submission].filter { !$0.isEmpty }.joined(separator: "\n"))

        ## Quick start for an agent

        With the `postern` binary, one command does the whole signup (proof of work, session, capability) and prints \
        the API key (shown once) and the inbox:

        ```bash
        postern agent signup --url \(baseURL) --username <5 to 21 of a-z 0-9 . _ ->
        ```

        Any other client follows [Agent signup](#agent-signup-atomic-mail-compatible) below; Atomic Mail's official \
        client works unchanged with `ATOMIC_MAIL_AUTH_URL` and `ATOMIC_MAIL_API_URL` set to \(baseURL). Then give \
        the key to any MCP host with this JSON (the [MCP server](#\(MCPLLMsText.anchor)) section has the tools):

        ```json
        \(MCPLLMsText.hostJSON(baseURL: baseURL))
        ```

        The OpenAPI 3.1 description of every endpoint: \(baseURL)/openapi.json. Signing keys: \
        \(baseURL)/.well-known/jwks.json.

        Agent inboxes may have an owner: a person who signs in at \(baseURL)/owner (an account the operator made, or \
        one from /owner/sign-up when the operator opened it), holds inboxes they created there or linked by \
        presenting an inbox's API key, can rotate an inbox's API key (the old key stops working at once: an agent \
        whose key is refused should ask its owner for the new one), and approves or revokes the apps that act on \
        their inboxes. An agent that signs up by itself has no owner until one links it.

        \(AgentLLMsText.render(agent))
        \(MailboxLLMsText.render(mailbox, baseURL: baseURL))
        \(RemoteHashLLMsText.render(remote))
        \(MailLLMsText.render(
            baseURL: baseURL, smtpAddress: smtpAddress, agentDomain: agent.inboxDomain,
            mailboxDomains: mailbox.domains + mailbox.proDomains))
        \(MCPLLMsText.render(baseURL: baseURL, mcp))
        \(OAuthLLMsText.render(oauth ?? OAuthConfiguration(issuer: baseURL)))
        \(OAuthResourceLLMsText.render(baseURL: baseURL))
        """
    }
}
