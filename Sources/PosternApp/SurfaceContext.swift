import ComputePool
import DNS
import Fetch
import JWT
import Logging
import MailClientSetup
import OAuthGrants
import SMTPServer
import ServerMetrics
import SigningKeys
import Storage

/// What the runtime builds once and hands every surface (``Surfaces/register(into:_:)``): the configuration and the
/// public identity, the signing keys, the database with its challenge ledger, the worker pool, the one DNS resolver,
/// the one fetcher, the mail store with its directory and its one custom-domain model, the grant cache, the listeners
/// a guide names, the metrics, the clock and the logger.
struct SurfaceContext {
    let configuration: PosternConfiguration
    /// The base URL and issuer every surface prints and mints with.
    let identity: PublicIdentity
    let keys: JWTKeySet
    let database: any SQLDatabase
    let ledger: ChallengeLedger
    let pool: WorkerPool
    /// The one DNS resolver (domain verification), from ``Surfaces/resolver(_:threads:)``.
    let resolver: DNSResolver
    /// The remote-hash fetcher, from ``Surfaces/fetcher(_:resolver:)``.
    let fetcher: Fetcher
    /// The mail store and directory; its ``Surfaces/LocalMail/domains`` is the one custom-domain model the owners'
    /// and Mail.td's domains are claimed in.
    let mail: Surfaces.LocalMail
    /// The instance's cache of live OAuth grants, which observes every revocation.
    let grantCache: OAuthGrantCache
    /// The SMTP listener's `host:port` for the guide; nil when it is off.
    let smtpAddress: String?
    /// The sandbox listener's port; nil when it is off.
    let sandboxPort: Int?
    /// The mail listeners clients are told of by autoconfig (``MailClientSetupSurface/servers(_:identity:)``).
    let mailClientServers: [MailClientServer]
    /// The SMTP failure-injection rules both listeners ask (`POSTERN_SMTP_CHAOS`); nil when off.
    let chaos: SMTPChaos?
    /// What seals secrets kept in the database (`POSTERN_KEY_SECRET`): the signing keys' one, on PostgreSQL; nil on
    /// SQLite. The owners' TOTP secrets are sealed with it.
    var sealer: KeySealer? = nil
    let metrics: PosternMetrics
    let clock: @Sendable () -> Int64
    let logger: Logger
}
