import AuthCrypto
import HTTP1
import MailStore
import OutboundQueue
import ServerKit
import Storage
import ServerMetrics

/// `GET /metrics`: the Prometheus exposition, behind `POSTERN_METRICS_TOKEN` when that is set, on the main port or on
/// the listener of `POSTERN_METRICS_LISTEN` (``PosternRuntime`` registers it on one router or the other, never both).
struct MetricsEndpoint: Sendable {
    let metrics: PosternMetrics
    /// Read for the storage gauges at scrape time.
    let database: any SQLDatabase
    /// Read for the outbound queue's gauges at scrape time.
    let outbound: OutboundQueue
    /// Unix seconds now (the oldest queued message's age).
    let clock: @Sendable () -> Int64
    /// SHA-256 of `POSTERN_METRICS_TOKEN`; nil when unset (no token asked).
    let tokenDigest: [UInt8]?
    /// The server's open-connection count now.
    let openConnections: @Sendable () -> Int
    /// How many requests wait for mail now (`/messages/wait`).
    let mailWaiters: @Sendable () -> Int

    init(
        metrics: PosternMetrics, database: any SQLDatabase, outbound: OutboundQueue, token: String?,
        clock: @escaping @Sendable () -> Int64, openConnections: @escaping @Sendable () -> Int,
        mailWaiters: @escaping @Sendable () -> Int
    ) {
        self.metrics = metrics
        self.database = database
        self.outbound = outbound
        self.clock = clock
        tokenDigest = token.map { SHA256.hash($0) }
        self.openConnections = openConnections
        self.mailWaiters = mailWaiters
    }

    /// Adds `GET /metrics` to `router`.
    func register(into router: inout ContextRouter) {
        router.add(.GET, "/metrics", .deferred { request, _, _ in await respond(to: request) })
    }

    /// The exposition, or 401 with `WWW-Authenticate: Bearer` when a token is configured and the request does not
    /// present it: digests compared in constant time, so neither the token's bytes nor its length show in the time a
    /// refusal takes.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let tokenDigest {
            guard let presented = request.bearerToken, constantTimeEquals(SHA256.hash(presented), tokenDigest) else {
                var refusal = HTTPResponse.json(.unauthorized, #"{"error":"unauthorized"}"#)
                refusal.headers.replaceOrAdd("WWW-Authenticate", "Bearer")
                return refusal
            }
        }
        let stored = try? await database.read { connection in try Self.storageReadings(connection) }
        let snapshot = PosternMetrics.Snapshot(
            openConnections: openConnections(), mailWaiters: mailWaiters(), storageBytes: stored?.bytes,
            outboxMessages: stored?.outbox, outboundQueue: try? await outbound.levels(now: clock()))
        var response = HTTPResponse(status: .ok, body: metrics.exposition(snapshot))
        response.headers.replaceOrAdd("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        return response
    }

    /// The database's size (SQLite: `page_count * page_size`; PostgreSQL: `pg_database_size`) and the held outbox's
    /// rows.
    static func storageReadings(_ connection: any SQLConnection) throws -> (bytes: Int64?, outbox: Int64?) {
        let sizeSQL =
            connection.dialect == .postgres
            ? "SELECT pg_database_size(current_database()) AS bytes"
            : "SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()"
        let bytes = try connection.query(sizeSQL, []).first?.int("bytes")
        return (bytes, try MailStore.outboxCount(connection))
    }
}
