import AgentAuth
import ServerKit

/// The agent surface, `/api/v1/` (contract 1.x): proof-of-work sign-up, capabilities and API keys.
enum AgentSurface {
    /// Adds the agent surface's routes; returns it for its 404/405 renderer and the guide.
    static func register(into router: inout ContextRouter, _ context: SurfaceContext) -> AgentAuthService {
        let agent = AgentAuthService(
            configuration: Surfaces.agentConfiguration(context.configuration, identity: context.identity),
            keys: context.keys, database: context.database, ledger: context.ledger, pool: context.pool,
            clock: context.clock, onUnexpectedError: Surfaces.reporter("agent", context.logger))
        agent.register(into: &router)
        return agent
    }
}
