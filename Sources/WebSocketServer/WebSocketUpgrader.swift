import AuthCrypto
import HTTP1
import HTTPServer
import SocketServer
import WebSocket

/// Turns a WebSocket route's request into the server's answer: the opening handshake checked
/// (`WebSocketHandshake`), then the route's own answer, then `101 Switching Protocols` with `Sec-WebSocket-Accept`
/// (SHA-1 and base64 from AuthCrypto) and the connection handed to a `WebSocketConnectionMachine`.
///
/// A refused handshake is answered as JSON `{"error":"<code>"}` with its status and headers (426 with
/// `Sec-WebSocket-Version: 13`, 400, 403...), and the connection stays HTTP. A route that decides later
/// (`WebSocketRouteAnswer.later`, credentials checked in storage) is awaited in a task while the connection waits:
/// its refusal is an ordinary HTTP response, never a close after a `101`.
public struct WebSocketUpgrader: Sendable {
    /// The limits and timers of every socket, and the allowed origins.
    public let configuration: WebSocketConfiguration
    /// The server's own origin (`POSTERN_PUBLIC_URL`'s), whose pages may always open sockets; nil when unknown.
    public let publicOrigin: WebOrigin?

    /// An upgrader under `configuration`, for a server at `publicOrigin`.
    public init(configuration: WebSocketConfiguration, publicOrigin: WebOrigin?) {
        self.configuration = configuration
        self.publicOrigin = publicOrigin
    }

    /// The answer to `request` on a WebSocket route whose own decision is `route` (called only for a valid
    /// handshake, on the event loop: it must not block).
    public func answer(
        _ request: HTTPRequest, route: (WebSocketHandshake.Request) -> WebSocketRouteAnswer
    ) -> HTTPAnswer {
        let handshake: WebSocketHandshake.Request
        switch WebSocketHandshake.validate(
            method: request.method, version: request.version, headers: request.headers, publicOrigin: publicOrigin,
            allowedOrigins: configuration.allowedOrigins)
        {
        case .success(let valid):
            handshake = valid
        case .failure(let refusal):
            var response = HTTPResponse.json(refusal.status, #"{"error":"\#(refusal.reason.rawValue)"}"#)
            for (name, value) in refusal.headers { response.headers.replaceOrAdd(name, value) }
            response.headers.replaceOrAdd("Cache-Control", "no-store")
            return .now(response)
        }
        switch route(handshake) {
        case .later(let decide):
            // Decided in a task; the connection waits (reading nothing) and no 101 goes out before an accept.
            return .decideUpgrade { [self] completion in
                Task {
                    var answer = await decide()
                    while case .later(let next) = answer { answer = await next() }
                    completion(decision(answer, handshake))
                }
            }
        case let answer:
            switch decision(answer, handshake) {
            case .respond(let response): return .now(response)
            case .upgrade(let upgrade): return .upgrade(upgrade)
            }
        }
    }

    /// The switch (`101` with `Sec-WebSocket-Accept`) for an accepting route answer, its response for a refusal.
    private func decision(_ answer: WebSocketRouteAnswer, _ handshake: WebSocketHandshake.Request)
        -> HTTPUpgradeDecision
    {
        switch answer {
        case .refuse(let response):
            return .respond(response)
        case .later:
            preconditionFailure("WebSocketUpgrader: a later answer is awaited before it is decided")
        case .accept(let subprotocol, let handler):
            let accept = Base64.encode(SHA1.hash(WebSocketHandshake.acceptInput(key: handshake.key)))
            let response = WebSocketHandshake.response(
                accept: accept, subprotocol: subprotocol.flatMap { handshake.protocols.contains($0) ? $0 : nil })
            let configuration = self.configuration
            return .upgrade(
                HTTPUpgrade(response: response) { handoff in
                    WebSocketConnectionMachine(handoff: handoff, configuration: configuration, handler: handler)
                })
        }
    }
}
