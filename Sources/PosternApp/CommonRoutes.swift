import Foundation
import HTTP1
import JWT
import ServerKit
import Storage

/// The endpoints outside the three surfaces (CONTRACT section 0): health, readiness, metrics, JWKS and
/// the OpenAPI document.
enum CommonRoutes {
    /// How long clients may cache the JWKS, in seconds (its `Cache-Control: max-age`).
    static let jwksMaxAge = 300

    /// Adds the shared endpoints to `router`.
    /// - Parameters:
    ///   - keys: the key set whose RSA and Ed25519 public keys `/.well-known/jwks.json` lists (it follows key
    ///     reloads).
    ///   - openAPI: the OpenAPI 3.1 document served as is (``OpenAPIDocument/serving(baseURL:)``).
    ///   - metrics: `/metrics`, or nil when it is served on a listener of its own (`POSTERN_METRICS_LISTEN`): then this
    ///     router answers 404 for it.
    ///   - draining: true once the server is about to stop: `/readyz` then fails, so a balancer moves away first.
    static func register(
        into router: inout ContextRouter, database: any SQLDatabase, metrics: MetricsEndpoint?, keys: JWTKeySet,
        openAPI: [UInt8], clock: @escaping @Sendable () -> Int64, draining: @escaping @Sendable () -> Bool
    ) {
        let healthy = HTTPResponse.json(.ok, #"{"status":"ok"}"#)  // built once: answering it is a copy
        router.add(.GET, "/healthz", .immediate { _, _, _ in healthy })
        router.add(.GET, "/readyz", .deferred { _, _, _ in
            if draining() { return .json(.serviceUnavailable, #"{"status":"draining"}"#) }
            do {
                try await database.probeWrite(now: clock())
                return .json(.ok, #"{"status":"ready"}"#)
            } catch {
                return .json(.serviceUnavailable, #"{"status":"unavailable"}"#)
            }
        })
        metrics?.register(into: &router)
        router.add(.GET, "/.well-known/jwks.json", .immediate { _, _, _ in
            var response = HTTPResponse.json(.ok, keys.jwksJSON())
            response.headers.replaceOrAdd("Cache-Control", "public, max-age=\(jwksMaxAge)")
            // Browser apps verify OAuth access tokens from it (docs/decisions/0023): CORS, no
            // credentials.
            response.headers.replaceOrAdd("Access-Control-Allow-Origin", "*")
            return response
        })
        router.add(.GET, "/openapi.json", .immediate { _, _, _ in .json(.ok, openAPI) })
    }
}
