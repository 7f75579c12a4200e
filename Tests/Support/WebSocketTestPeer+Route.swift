import HTTP1
import ServerKit
import Testing
import WebSocket

extension WebSocketTestPeer {
    /// The socket `router`'s WebSocket route at `path` accepts for a valid upgrade carrying `headers` (a credential),
    /// decided as the server decides it (a deferred decision awaited); fails the test when the route refuses it.
    public static func upgrade(
        _ router: ContextRouter, _ path: String, headers extra: [(String, String)] = []
    ) async throws -> WebSocketTestPeer {
        var headers: HTTPHeaders = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        for (name, value) in extra { headers.add(name, value) }
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let request = HTTPRequest(
            method: .GET, target: path, version: .http1_1, headers: headers, body: [], remoteAddress: "127.0.0.1",
            requestID: "websocket-test")
        let handshake = try WebSocketHandshake.validate(
            method: .GET, version: .http1_1, headers: headers, publicOrigin: nil, allowedOrigins: []
        ).get()
        guard case .found(let found, let parameters) = router.match(method: .GET, path: route),
            case .webSocket(let handler) = found.handler
        else { throw WebSocketRouteMissing(path: route) }
        var answer = handler(request, RequestContext(request), parameters, handshake)
        while case .later(let decide) = answer { answer = await decide() }
        let accepted = try #require(
            { if case .accept(_, let handler) = answer { handler } else { nil } }(), "the upgrade was refused")
        return WebSocketTestPeer(accepted)
    }
}

/// No WebSocket route at the path.
public struct WebSocketRouteMissing: Error {
    public let path: String
}
