import HTTP1
import HTTPServer
import Logging
import SocketServer
import Synchronization
import WebSocket
import WebSocketServer

/// A responder with one WebSocket route, `/ws`, whose handler echoes every message; on `push <count> <size>` it sends
/// `count` messages of `size` bytes (from its task, off the loop), on `bye` it closes with 1008, on `return` it
/// returns, on `throw` it throws, on `sleep` it sleeps an hour without reading; anything else is 404.
final class EchoResponder: HTTPResponder {
    let upgrader: WebSocketUpgrader
    /// How many handlers have ended (returned, thrown or been cancelled out of a `sleep`).
    let ended = Atomic<Int>(0)

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
            return .accept(subprotocol: handshake.protocols.first) { [self] inbound, outbound in
                defer { self.ended.add(1, ordering: .relaxed) }
                for await message in inbound {
                    if case .text(let text) = message, text.hasPrefix("push ") {
                        let parts = text.split(separator: " ")
                        let count = Int(parts[1]) ?? 0
                        let size = Int(parts[2]) ?? 0
                        for _ in 0..<count { outbound.send(.binary([UInt8](repeating: 0x2A, count: size))) }
                    } else if case .text("bye") = message {
                        outbound.close(.policyViolation, reason: "asked to")
                    } else if case .text("sleep") = message {
                        // Reads nothing more: only the socket's end (a cancellation) wakes it.
                        try await Task.sleep(for: .seconds(3600))
                    } else if case .text("return") = message {
                        return
                    } else if case .text("throw") = message {
                        throw CancellationError()
                    } else {
                        outbound.send(message)
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
) throws -> (HTTPServer, Int, EchoResponder) {
    var webSocket = WebSocketConfiguration()
    configure(&webSocket)
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.eventQueueCount = 2
    configuration.shutdownGracePeriod = .seconds(10)
    configureServer(&configuration)
    let responder = EchoResponder(configuration: webSocket)
    let server = HTTPServer(configuration: configuration, responder: responder, logger: Logger(label: "test.websocket"))
    return (server, try server.start(), responder)
}
