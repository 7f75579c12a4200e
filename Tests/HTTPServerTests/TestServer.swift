import Foundation
import HTTP1
import HTTPServer
import Logging
import PosternTestSupport

/// Routes for the loopback tests.
func testRouter() -> Router {
    var router = Router()
    router.add(.GET, "/hello", .immediate { _, _ in .text(.ok, "hello") })
    router.add(.GET, "/items/{id}", .immediate { _, parameters in .text(.ok, "item \(parameters["id"] ?? "")") })
    router.add(.POST, "/echo", .immediate { request, _ in HTTPResponse(status: .ok, body: request.body) })
    router.add(.POST, "/small", bodyLimit: 10, .immediate { request, _ in .text(.ok, "\(request.body.count)") })
    router.add(
        .GET, "/slow",
        .deferred { request, _ in
            let milliseconds = Int(request.queryItem("ms") ?? "0") ?? 0
            try? await Task.sleep(for: .milliseconds(milliseconds))
            return .text(.ok, "slept \(milliseconds)")
        })
    router.add(.GET, "/gated", .deferred { _, _ in
        await shutdownGate.wait()
        return .text(.ok, "opened")
    })
    router.add(.GET, "/id", .immediate { request, _ in .text(.ok, request.requestID) })
    router.add(.GET, "/peer", .immediate { request, _ in .text(.ok, request.remoteAddress) })
    return router
}

/// What `/gated` waits for: opened by the graceful-shutdown test once the shutdown has reached the request's loop.
let shutdownGate = TestGate()

/// Starts a server on 127.0.0.1 port 0 with `configure` applied.
func startServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> (HTTPServer, Int) {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.eventQueueCount = 2
    configure(&configuration)
    let server = HTTPServer(
        configuration: configuration, responder: RouterResponder(router: testRouter()),
        logger: Logger(label: "test.http"))
    let port = try server.start()
    return (server, port)
}

/// Seconds since an arbitrary start, for the latency checks.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
