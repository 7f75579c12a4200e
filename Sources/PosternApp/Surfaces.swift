import AgentAuth
import ComputePool
import HTTP1
import JWT
import Logging
import Storage

/// Builds the three API surfaces from the configuration and adds their routes.
enum Surfaces {
    /// Adds every surface's routes; returns the 404/405 renderers of the surfaces that own a path prefix.
    static func register(
        into router: inout Router, configuration: PosternConfiguration, keys: JWTKeySet, database: Database,
        ledger: ChallengeLedger, pool: WorkerPool, clock: @escaping @Sendable () -> Int64, logger: Logger
    ) -> [PosternResponder.UnmatchedRenderer] {
        let agent = AgentAuthService(
            configuration: agentConfiguration(configuration), keys: keys, database: database, ledger: ledger,
            pool: pool, clock: clock)
        agent.register(into: &router)
        return [
            PosternResponder.UnmatchedRenderer(prefix: "/api/v1/") { agent.unmatchedResponse($0) }
        ]
    }

    static func agentConfiguration(_ c: PosternConfiguration) -> AgentAuthConfiguration {
        AgentAuthConfiguration(
            publicURL: c.baseURL, issuer: c.issuer, powSalt: c.agentPowSalt, baseDifficulty: c.agentPowDifficulty,
            maxDifficulty: c.agentPowMaxDifficulty, dynamicDifficulty: c.agentPowDynamic,
            inboxDomain: c.agentInboxDomain)
    }
}
