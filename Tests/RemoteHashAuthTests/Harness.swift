import AuthCrypto
import ComputePool
import Fetch
import Foundation
import HTTP1
import JWT
import Logging
import Storage

@testable import RemoteHashAuth

/// The repository's `migrations/` directory, found from this file's path.
let repositoryMigrations: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("migrations").path
}()

/// One RSA key for the whole test run (generation takes a while).
let sharedKeys: JWTKeySet = {
    let key = try! JWTKey.rsa(kid: "remote-test", privateKey: RSAPrivateKey.generate(bits: 2048))
    return try! JWTKeySet(keys: [key], activeHMAC: nil, activeRSA: "remote-test")
}()

/// A fast Argon2id hash of `password` (64 KiB, 1 pass), as an origin would serve it.
func cheapHash(_ password: String) throws -> String {
    try Argon2.hash(
        password: Array(password.utf8), salt: SecureRandom.bytes(16), memoryKiB: 64, iterations: 1, parallelism: 1)
}

/// A settable clock.
final class TestClock: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Int64 = 1_800_000_000

    var now: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func advance(_ seconds: Int64) {
        lock.lock()
        value += seconds
        lock.unlock()
    }
}

/// A real service over a migrated temporary database, a real fetcher and a local origin.
final class Harness {
    let origin: TestOrigin
    let directory: String
    let database: Database
    let service: RemoteHashService
    let router: Router
    let clock = TestClock()
    let configuration: RemoteHashConfiguration

    init(configure: (inout RemoteHashConfiguration) -> Void = { _ in }) throws {
        origin = try TestOrigin()
        directory = NSTemporaryDirectory() + "postern-remote-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        database = try Database.open(
            path: directory + "/postern.sqlite", readerCount: 2, logger: Logger(label: "remote.tests"))
        _ = try Migrator(directory: repositoryMigrations).migrate(database)
        var configuration = RemoteHashConfiguration(issuer: "https://postern.test", publicURL: "http://localhost:8080")
        configuration.allowPrivate = true
        configuration.rateLimitsEnabled = false
        configure(&configuration)
        self.configuration = configuration
        let fetcher = try Fetcher(configuration: configuration.fetchConfiguration)
        let clock = self.clock
        service = RemoteHashService(
            configuration: configuration, keys: sharedKeys, database: database, pool: WorkerPool(threads: 2),
            fetcher: fetcher, clock: { clock.now })
        var router = Router()
        service.register(into: &router)
        self.router = router
    }

    deinit {
        origin.stop()
        try? FileManager.default.removeItem(atPath: directory)
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
            method: method, target: target, headers: HTTPHeaders(headers), body: body, remoteAddress: address)
        guard case .found(let route, let parameters) = router.match(method: method, path: request.path) else {
            return HTTPResponse(status: .notFound)
        }
        switch route.handler {
        case .immediate(let handler): return handler(request, parameters)
        case .deferred(let handler): return await handler(request, parameters)
        }
    }

    /// A JSON API call: `Accept` and `Content-Type` JSON, body from `fields`.
    func api(_ method: HTTPMethod, _ path: String, _ fields: [String: String] = [:], bearer: String? = nil,
             from address: String = "192.0.2.10") async -> (status: Int, json: JSONValue?) {
        var headers = [("Accept", "application/json"), ("Content-Type", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        let body = JSONValue.object(fields.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }).serialize()
        let response = await send(method, path, headers: headers, body: body, from: address)
        return (response.status.code, try? JSONValue.parse(response.body))
    }

    /// Registers through the JSON API and returns the status and error (if any).
    func register(_ email: String, _ url: String, _ password: String) async -> (Int, String?) {
        let (status, json) = await api(.POST, "/register", ["email": email, "password_hash_url": url, "password": password])
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
