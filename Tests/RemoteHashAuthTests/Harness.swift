import AuthCrypto
import ComputePool
import EmbeddedResources
import Fetch
import Foundation
import HTTP1
import JSON
import JWT
import Logging
import Metrics
import PosternTestSupport
import ServerKit
import Storage

@testable import RemoteHashAuth

/// One RSA key for the whole test run: a fixed throwaway test key (made with `openssl genpkey`), so that
/// no test blocks the cooperative threads for seconds generating one.
let sharedKeys: JWTKeySet = {
    let key = try! JWTKey.rsa(kid: "remote-test", privateKey: RSAPrivateKey(pem: testPrivateKeyPEM))
    // An HMAC key as well, as in the app's set (challenges, sessions, mailbox tokens): the surface must not take a
    // token it signs.
    let secret = try! JWTKey.hmac(kid: "remote-hs-test", secret: SecureRandom.bytes(32))
    return try! JWTKeySet(keys: [key, secret], activeHMAC: "remote-hs-test", activeRSA: "remote-test")
}()

/// A 2048-bit RSA key used only by these tests.
private let testPrivateKeyPEM = """
    -----BEGIN PRIVATE KEY-----
    MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDYYEKcmStga42t
    2H9Jjo0HBLLzsCffCSvrn/bBfYDxyU9UW9qfTyI8+l5vsJ4Nwcnx3Rwa4bqCXdxx
    LWE2JQdZ1j3Mo6sIq4w58s7eYt1/adA7mb1JxYgdUUpSblE0sJ0SsW6MssSINEhJ
    scrs2Sp9bqeFyu+O0ThSb7wx55b7k9KJrA11+yXyL/CR/ztd1nByszDy9ySDHN+N
    QJCXoij+KrRc9cwwPEfWM0jqyYpCA5TBJ/Bt2KpuCr9g+vcEKqRO8e05gkh7g8MQ
    wy27E4ztwKQV2k7OG261/QJs2uIj5f1NvAllrI7b/HY+WyguhU7ldL/yo5RgGz5q
    +wn1CIP1AgMBAAECggEAWaQvlI8EYHLOhHpP6ZpsJL82oCyXqBg1oO1pnimvlPvw
    qKNRRHTVW2viWeVS5aImVtRiw2RHD6FxJVZGktbuX7KZccFQp0vi0VMdjxZoa1Pc
    GAUOXZS/Wl4GK3ZWoDyXJlpp0VJyh3cZh6Znyo4Bw2tnbc9wRbu52LU/w3ENpPWK
    3aw4PDLgPiGMu0Ove0kTr05NGRK2L/57KTCi+BjmbdqeSUF9s2gAT2ymOY+wpOrf
    iWQO6K7XJbU/jc0HpbJXpWt+0xuKNzgT0HnFk8Z4O8pgK4t1y8eNKC1ETJooDdDE
    y7G26hJQPhvqqjWUXbOli8a+akMR9udaSltstUFetQKBgQDr8mXmM+Z1qL7EG/wv
    b2GaoT4ywnCP6cRFztDmpnHH1x7gExKiKnTHTyPHkO8X1JVdrZRIGea4Qu/jPWwE
    Ry8uINdu2A0HAH2dIuMfqitCrEkr5SLxiiunma3K0xK3ZzZ4iDtUMdKiWYBOVAEA
    pNokHKYp3tO8EEuIHopd2DG/lwKBgQDqxAzktyp+P5m1jB5OuZpcp7dPmnDOmRg6
    oTfo/qUheRqrNXBBohUfSOzsho5J/cLOPFdR9B0X8bfC42Pm13onC/0q/x9Fnz8b
    X4rugyVLQxxoMMHpcLq2n0yQL1/I1ETCtGAWiZzvjRwUPvHR5M6KnT5QrBwj6WcZ
    KWo9xWCKUwKBgALzwXqj45pNRjXF893UEvCQW+req/HhBueossxwALRzaJt9IZqN
    1XA4+UWh9pvhuQy3A0fzqwNbMw0w040qJtj46Dkm0uLniqrQqO7YfjoTVccK0uka
    xXkPXzFOesl4rSHM8pEXHn+Rhx1zx59ucJxLD3kupI+R1KAbYbfS4Kx5AoGAZ87m
    8J95n7eZzSg3IpJ5iizzJrTg2snhZ9Nv+IvZEtMNEtWfXLZB5sKFWRUqh9c4s58E
    8Y0i7DqLChcoTqPLNMbdXIzRFCUVb5IwycSd0gjL39pndETPmv8XiM4Z6aDLAtll
    f7G7/kUEPIOUxD4LgkmDi4J/MvX7C6o/ey7ywFcCgYEAlwGOKdQPgkdIM4LdkQb9
    nDh7Dn5wLrg4EN0nlgDnkh7L16bpNoCTPNL/2MzlPqSVI7sp4FhXe3n0Z9VswtIK
    uk2Bx+XTy7FSCCQVg8juyG3njL5SsAEzjA4jzmzs1czSHN2nomMKNrEfhHiEyuwf
    Tc+aw8hkdC7kf1NxFypocQM=
    -----END PRIVATE KEY-----
    """

/// A fast Argon2id hash of `password` (64 KiB, 1 pass), as an origin would serve it.
func cheapHash(_ password: String) throws -> String {
    try Argon2.hash(
        password: Array(password.utf8), salt: SecureRandom.bytes(16), memoryKiB: 64, iterations: 1, parallelism: 1)
}

/// A real service over a migrated temporary database, a real fetcher and a local origin.
final class Harness {
    let origin: TestOrigin
    let test: TestDatabase
    var database: any SQLDatabase { test.database }
    let service: RemoteHashService
    let router: ContextRouter
    let clock = TestClock()
    /// Drives the rate limiter (the monotonic clock, from 0).
    let limiterClock = TestClock(0)
    let configuration: RemoteHashConfiguration
    /// Request ids of the requests answered with a bare 500, as the service reported them.
    let unexpected = RequestIDLog()

    init(
        _ backend: StorageBackend, metricsFactory: (any MetricsFactory)? = nil,
        configure: (inout RemoteHashConfiguration) -> Void = { _ in }
    ) throws {
        origin = try TestOrigin()
        test = try backend.makeDatabase(logger: Logger(label: "remote.tests"))
        let database = test.database
        var configuration = RemoteHashConfiguration(issuer: "https://postern.test", publicURL: "http://localhost:8080")
        configuration.allowPrivate = true
        configuration.rateLimitsEnabled = false
        configure(&configuration)
        self.configuration = configuration
        let fetcher = try Fetcher(configuration: configuration.fetchConfiguration, resolver: NoLookups())
        let clock = self.clock
        let limiterClock = self.limiterClock
        service = try RemoteHashService(
            configuration: configuration, keys: sharedKeys, database: database, pool: WorkerPool(threads: 2),
            fetcher: fetcher, clock: { clock.now }, monotonicClock: limiterClock.monotonic,
            metricsFactory: metricsFactory, onUnexpectedError: unexpected.reporter)
        var router = ContextRouter()
        service.register(into: &router)
        self.router = router
    }

    deinit {
        origin.stop()
    }

    /// Serves a cheap hash of `password` at `path` and returns the URL.
    @discardableResult
    func serveHash(of password: String, at path: String = "/hash.txt") throws -> String {
        origin.set(path, body: try cheapHash(password) + "\n")
        return origin.url(path)
    }

    /// Sends a request through the router to the service's handler.
    func send(
        _ method: HTTPMethod, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        from address: String = "192.0.2.10"
    ) async -> HTTPResponse {
        let request = HTTPRequest(
            method: method, target: target, headers: HTTPHeaders(headers), body: body, remoteAddress: address,
            requestID: "test")
        return await router.respond(to: request)
    }

    /// A JSON API call: `Accept` and `Content-Type` JSON, body from `fields`.
    func api(
        _ method: HTTPMethod, _ path: String, _ fields: [String: String] = [:], bearer: String? = nil,
        from address: String = "192.0.2.10"
    ) async -> (status: Int, json: JSONValue?) {
        var headers = [("Accept", "application/json"), ("Content-Type", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        let body = JSONValue.object(fields.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }).serialize()
        let response = await send(method, path, headers: headers, body: body, from: address)
        return (response.status.code, try? JSONValue.parse(response.body))
    }

    /// Registers through the JSON API and returns the status and error (if any).
    func register(_ email: String, _ url: String, _ password: String) async -> (Int, String?) {
        let (status, json) = await api(
            .POST, "/register", ["email": email, "password_hash_url": url, "password": password])
        return (status, json?["error"]?.stringValue)
    }

    /// Logs in through the JSON API; returns the status and the token or the error.
    func login(_ email: String, _ password: String) async -> (status: Int, token: String?, error: String?) {
        let (status, json) = await api(.POST, "/login", ["email": email, "password": password])
        return (status, json?["token"]?.stringValue, json?["error"]?.stringValue)
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
