import HTTP1
import HTTPServer
import Logging
import SocketServer
import WebSocket
import WebSocketServer

/// A responder with one WebSocket route, `/ws`, that echoes every message and, on `push`, sends `count` messages of
/// `size` bytes from a task (a producer off the loop); anything else is 404.
final class EchoResponder: HTTPResponder {
    let upgrader: WebSocketUpgrader

    init(configuration: WebSocketConfiguration) {
        upgrader = WebSocketUpgrader(configuration: configuration, publicOrigin: WebOrigin("https://mail.example"))
    }

    func route(method: HTTPMethod, path: String) -> HTTPRoute {
        HTTPRoute(bodyLimit: nil, match: path, logName: path)
    }

    func respond(to request: HTTPRequest, route: HTTPRoute) -> HTTPAnswer {
        guard request.path == "/ws" else { return .now(.json(.notFound, #"{"error":"not_found"}"#)) }
        return upgrader.answer(request) { handshake in
            if handshake.protocols.contains("refuse") { return .refuse(.json(.unauthorized, #"{"error":"no"}"#)) }
            return .accept(subprotocol: handshake.protocols.first) { channel in
                channel.onMessage { message in
                    if case .text(let text) = message, text.hasPrefix("push ") {
                        let parts = text.split(separator: " ")
                        let count = Int(parts[1]) ?? 0
                        let size = Int(parts[2]) ?? 0
                        Task {
                            for _ in 0..<count { channel.send(.binary([UInt8](repeating: 0x2A, count: size))) }
                        }
                    } else if case .text("bye") = message {
                        channel.close(.policyViolation, reason: "asked to")
                    } else {
                        channel.send(message)
                    }
                }
            }
        }
    }
}

/// Starts an HTTP server with the echo route on 127.0.0.1 port 0; `server` changes the HTTP server's own settings
/// (its connection caps).
func startEchoServer(
    _ configure: (inout WebSocketConfiguration) -> Void = { _ in },
    server configureServer: (inout HTTPServerConfiguration) -> Void = { _ in }
) throws -> (HTTPServer, Int) {
    var webSocket = WebSocketConfiguration()
    configure(&webSocket)
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.eventQueueCount = 2
    configuration.shutdownGracePeriod = .seconds(10)
    configureServer(&configuration)
    let server = HTTPServer(
        configuration: configuration, responder: EchoResponder(configuration: webSocket),
        logger: Logger(label: "test.websocket"))
    return (server, try server.start())
}
