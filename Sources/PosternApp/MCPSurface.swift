import AgentAuth
import JMAP
import MCPServer
import ServerKit
import Storage

/// MCP (`/mcp`): agents with their API keys, owners with their OAuth access tokens, over JMAP's methods.
enum MCPSurface {
    /// Adds MCP's routes; returns its settings for the guide.
    /// - Throws: storage errors from the session secret.
    static func register(
        into router: inout ContextRouter, _ context: SurfaceContext, _ shared: SharedSurfaceParts, jmap: JMAPService
    ) throws -> MCPConfiguration {
        let (configuration, identity, database) = (context.configuration, context.identity, context.database)
        var settings = configuration.mcp
        settings.baseURL = MCPConfiguration(baseURL: identity.baseURL).baseURL
        settings.serverVersion = PosternVersion.text
        settings = configuration.rateLimits.applied(to: settings)
        if configuration.oauth.clientCredentials {
            settings.extensions.append(MCPConfiguration.clientCredentialsExtension)
        }
        let apiKeys = AgentAPIKeyAuthenticator(
            accounts: AgentAccountStore(database: database), inboxDomain: configuration.agent.inboxDomain,
            directory: shared.agentInboxes)
        MCPService(
            configuration: settings, authenticator: apiKeys,
            owners: MCPOwnerAccess(
                verifier: shared.auditingReads(at: "mcp"), principals: shared.ownerPrincipals,
                issuer: identity.baseURL),
            jmap: jmap, mail: context.mail.store, clock: context.clock,
            sessionSecret: try SharedSecrets(database: database).secret(
                named: MCPSessions.secretName, make: MCPSessions.newSecret),
            onUnexpectedError: Surfaces.reporter("mcp", context.logger)
        ).register(into: &router)
        return settings
    }
}
