import RemoteHashAuth
import ServerKit

/// The remote-hash surface: sign-in against a site's own password hashes, and the landing page at `/`.
enum RemoteHashSurface {
    /// Adds the remote-hash routes and the landing page; returns the surface's settings for the guide.
    /// - Throws: storage or crypto errors from the surface's start-up.
    static func register(into router: inout ContextRouter, _ context: SurfaceContext) throws
        -> RemoteHashConfiguration
    {
        let settings = Surfaces.remoteConfiguration(context.configuration, identity: context.identity)
        try RemoteHashService(
            configuration: settings, keys: context.keys, database: context.database, pool: context.pool,
            fetcher: context.fetcher, clock: context.clock,
            onUnexpectedError: Surfaces.reporter("remote-hash", context.logger)
        ).register(into: &router, landing: LandingPage.landing(
                baseURL: context.identity.baseURL, doors: LandingPage.doors(context.configuration)))
        return settings
    }
}
