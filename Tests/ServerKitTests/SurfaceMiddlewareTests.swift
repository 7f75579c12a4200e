import HTTP1
import PosternTestSupport
import Synchronization
import Testing

@testable import ServerKit

@Suite("Surface middleware")
struct SurfaceMiddlewareTests {
    enum Class: Hashable, Sendable {
        case api
    }

    struct Refused: Error {}
    struct Broken: Error {}

    /// What the middleware told the surface: rejected classes and reported request ids.
    final class Seen: Sendable {
        let rejected = Mutex<[Class]>([])
        let reported = Mutex<[String]>([])
    }

    /// A surface of two requests a second whose 429 is `text/plain` "slow down", whose `Refused` is a 400
    /// (not reported) and anything else a reported 500, and which stamps `X-Surface` on every answer.
    static func middleware(_ clock: TestClock, _ seen: Seen) -> SurfaceMiddleware<Class> {
        SurfaceMiddleware(
            limiter: RateLimitTable(capacity: 16, clock: clock.monotonic) { _ in
                TokenBucketRate(requests: 2, perSeconds: 1)
            },
            rejected: { rateClass in seen.rejected.withLock { $0.append(rateClass) } },
            tooManyRequests: { _, _ in HTTPResponse.text(.tooManyRequests, "slow down") },
            failure: { error in
                error is Refused
                    ? (HTTPResponse.text(.badRequest, "refused"), false)
                    : (HTTPResponse.text(.internalServerError, "internal"), true)
            },
            finish: { response, _ in
                var response = response
                response.headers.replaceOrAdd("X-Surface", "test")
                return response
            },
            onUnexpectedError: { _, requestID in seen.reported.withLock { $0.append(requestID) } })
    }

    static let context = RequestContext(
        HTTPRequest(method: .GET, target: "/", headers: HTTPHeaders(), remoteAddress: "192.0.2.7", requestID: "req-9"))

    @Test("past the rate the surface's 429 comes with Retry-After, counted, finished, and the handler never runs")
    func refusal() async {
        let (clock, seen) = (TestClock(0), Seen())
        let middleware = Self.middleware(clock, seen)
        for _ in 0..<2 {
            let response = await middleware.run(.api, Self.context) { HTTPResponse.text(.ok, "fine") }
            #expect(response.status == .ok)
            #expect(response.headers["X-Surface"] == "test")
        }
        let ran = Mutex(false)
        let refused = await middleware.run(.api, Self.context) {
            ran.withLock { $0 = true }
            return HTTPResponse.text(.ok, "fine")
        }
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.headers["X-Surface"] == "test")
        #expect(!ran.withLock { $0 })
        #expect(seen.rejected.withLock { $0 } == [.api])
        clock.advance(milliseconds: 500)
        #expect(middleware.runNow(.api, Self.context) { HTTPResponse.text(.ok, "fine") }.status == .ok)
    }

    @Test("a thrown error becomes the surface's answer; only an unforeseen one is reported, with the request id")
    func failures() async {
        let seen = Seen()
        let middleware = Self.middleware(TestClock(0), seen)
        let refused = await middleware.run(.api, Self.context) { throw Refused() }
        #expect(refused.status == .badRequest)
        #expect(refused.headers["X-Surface"] == "test")
        #expect(seen.reported.withLock { $0 }.isEmpty)
        let broken = middleware.runNow(.api, Self.context) { throw Broken() }
        #expect(broken.status == .internalServerError)
        #expect(seen.reported.withLock { $0 } == ["req-9"])
    }

    @Test("with rate limits off nothing is charged and the handler always runs")
    func limitsOff() async {
        let middleware = SurfaceMiddleware<Class>(
            limiter: nil, tooManyRequests: { _, _ in HTTPResponse.text(.tooManyRequests, "") },
            failure: { _ in (HTTPResponse.text(.internalServerError, ""), true) }, onUnexpectedError: nil)
        #expect(middleware.charge(.api, Self.context) == nil)
        for _ in 0..<10 {
            #expect(await middleware.run(.api, Self.context) { HTTPResponse.text(.ok, "") }.status == .ok)
        }
    }
}
