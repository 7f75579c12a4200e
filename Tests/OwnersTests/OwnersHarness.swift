import ComputePool
import HTTP1
import Owners
import PasswordHashing
import PosternTestSupport
import ServerKit
import Storage
import Testing

/// Argon2id at test cost (64 KiB, one pass): the rules under test do not depend on the cost.
let cheapArgon2 = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

/// The owners' service over a new database of the backend under test, its routes, a test clock and a cookie jar.
final class OwnersHarness: @unchecked Sendable {
    let test: TestDatabase
    let clock = TestClock()
    let service: OwnerService
    var router: ContextRouter
    /// Cookies the "browser" holds, as the last responses set them.
    var cookies: [String: String] = [:]

    init(configure: (inout OwnersConfiguration) -> Void = { _ in }) throws {
        test = try StorageBackend.current.makeDatabase()
        var configuration = OwnersConfiguration(publicURL: "http://127.0.0.1:8080")
        configuration.argon2 = cheapArgon2
        configuration.rateLimitsEnabled = false
        configure(&configuration)
        let clock = clock
        service = try OwnerService(
            configuration: configuration, database: test.database, pool: WorkerPool(threads: 1),
            clock: { clock.now }, monotonicClock: clock.monotonic)
        var router = ContextRouter()
        service.register(into: &router)
        self.router = router
    }

    /// Sends a request with the jar's cookies and keeps what it sets.
    func send(_ method: HTTPMethod, _ target: String, form: [String: String]? = nil) async -> HTTPResponse {
        var headers = HTTPHeaders()
        if !cookies.isEmpty {
            headers.add("Cookie", cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        var body: [UInt8] = []
        if let form {
            headers.add("Content-Type", "application/x-www-form-urlencoded")
            body = Array(form.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&").utf8)
        }
        let request = HTTPRequest(
            method: method, target: target, version: .http1_1, headers: headers, body: body,
            remoteAddress: "192.0.2.9", requestID: "owners-test")
        let path = String(target.split(separator: "?", maxSplits: 1)[0])
        guard case .found(let route, let parameters) = router.match(method: method, path: path) else {
            return HTTPResponse(status: .notFound)
        }
        let response = await route.handler.response(to: request, RequestContext(request), parameters)
        for line in response.headers.values("Set-Cookie") {
            let pair = line.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || line.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return response
    }

    /// The CSRF token in the page `response` (its hidden field).
    static func csrf(in response: HTTPResponse) -> String? {
        let html = String(decoding: response.body, as: UTF8.self)
        guard let range = html.range(of: "name=\"csrf_token\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Opens the sign-in page and posts `email` and `password` with its CSRF token.
    func signIn(_ email: String, _ password: String, next: String = "/owner") async throws -> HTTPResponse {
        let page = await send(.GET, "/owner/sign-in?next=" + Self.encode(next))
        let token = try #require(Self.csrf(in: page))
        return await send(
            .POST, "/owner/sign-in", form: ["email": email, "password": password, "csrf_token": token, "next": next])
    }

    static func encode(_ text: String) -> String { PercentEncoding.encode(text) }
}
