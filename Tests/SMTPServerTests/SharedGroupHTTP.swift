import HTTP1
import HTTPServer
import Logging
import SocketServer

/// An HTTP server with one route (`GET /hello`) on a group shared with the SMTP server under test.
struct SharedGroupHTTP {
    let server: HTTPServer
    let port: Int

    init(group: EventLoopGroup) throws {
        var router = Router()
        router.add(.GET, "/hello", .immediate { _, _ in .text(.ok, "hello") })
        server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
            responder: RouterResponder(router: router), group: group, logger: Logger(label: "test.http"))
        port = try server.start()
    }
}
