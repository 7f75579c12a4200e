import HTTP1

/// The server's side of the opening handshake (RFC 6455 §4.2): whether an HTTP request may become a WebSocket, and
/// the `101 Switching Protocols` response that makes it one.
///
/// The checks, in order, each refusing with the status named (the connection then stays plain HTTP):
/// 1. the method is `GET` (else 405, `Allow: GET`) and the version HTTP/1.1 (else 400);
/// 2. `Upgrade` lists `websocket` (else 426, `Upgrade: websocket`: the route serves WebSockets only);
/// 3. `Connection` lists `upgrade` (else 400);
/// 4. `Sec-WebSocket-Version` is `13` (else 426 with `Sec-WebSocket-Version: 13`, §4.4);
/// 5. `Sec-WebSocket-Key` is one header whose value is base64 of 16 bytes (else 400);
/// 6. an `Origin`, when present, is the server's public origin or an allowed one (else 403, §4.2.2 step 4; a
///    request without `Origin` is not from a browser page and is not refused for it).
///
/// No extension is ever accepted: `Sec-WebSocket-Extensions` (`permessage-deflate`) is declined by leaving it out of
/// the response. A subprotocol is echoed only when the route chooses one of those the client offered.
///
/// Pure: the `Sec-WebSocket-Accept` digest (SHA-1, then base64) is the caller's, so that this target needs no crypto.
public enum WebSocketHandshake {
    /// The GUID of §1.3 appended to the key before hashing.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A request that passed every check.
    public struct Request: Sendable, Equatable {
        /// `Sec-WebSocket-Key` as sent.
        public let key: String
        /// The subprotocols offered in `Sec-WebSocket-Protocol`, in order.
        public let protocols: [String]
    }

    /// Why a request may not become a WebSocket, with the HTTP response status and headers it gets.
    public struct Refusal: Error, Sendable, Equatable {
        /// The check that failed.
        public enum Reason: String, Sendable, Equatable {
            case notGet = "method_not_allowed"
            case notHTTP11 = "http_1_1_required"
            case notUpgrade = "websocket_upgrade_required"
            case noConnectionUpgrade = "connection_upgrade_required"
            case unsupportedVersion = "unsupported_websocket_version"
            case badKey = "invalid_websocket_key"
            case forbiddenOrigin = "origin_not_allowed"
        }

        /// The check that failed (its raw value is the error code a JSON body may carry).
        public let reason: Reason

        /// The refusal for `reason`.
        public init(reason: Reason) {
            self.reason = reason
        }

        /// The response status.
        public var status: HTTPStatus {
            switch reason {
            case .notGet: return .methodNotAllowed
            case .notUpgrade, .unsupportedVersion: return HTTPStatus(code: 426, reason: "Upgrade Required")
            case .forbiddenOrigin: return .forbidden
            case .notHTTP11, .noConnectionUpgrade, .badKey: return .badRequest
            }
        }

        /// The header fields the response must carry.
        public var headers: HTTPHeaders {
            switch reason {
            case .notGet: return ["Allow": "GET"]
            case .notUpgrade: return ["Upgrade": "websocket", "Sec-WebSocket-Version": "13"]
            case .unsupportedVersion: return ["Sec-WebSocket-Version": "13"]
            default: return HTTPHeaders()
            }
        }
    }

    /// Whether `headers` ask for a WebSocket (an `Upgrade` naming `websocket`): the cheap test that tells a
    /// WebSocket route's upgrade from a plain request to it.
    public static func asksForWebSocket(_ headers: HTTPHeaders) -> Bool {
        headers.values("Upgrade").contains { listContains($0, "websocket") }
    }

    /// Checks a request against the rules above.
    /// - Parameters:
    ///   - publicOrigin: the server's own origin, or nil when unknown (then only `allowedOrigins` pass).
    ///   - allowedOrigins: further origins whose pages may open sockets.
    public static func validate(
        method: HTTPMethod, version: HTTPVersion, headers: HTTPHeaders, publicOrigin: WebOrigin?,
        allowedOrigins: [WebOrigin]
    ) -> Result<Request, Refusal> {
        guard method == .GET else { return .failure(Refusal(reason: .notGet)) }
        guard version == .http1_1 else { return .failure(Refusal(reason: .notHTTP11)) }
        guard asksForWebSocket(headers) else { return .failure(Refusal(reason: .notUpgrade)) }
        guard headers.values("Connection").contains(where: { listContains($0, "upgrade") }) else {
            return .failure(Refusal(reason: .noConnectionUpgrade))
        }
        let versions = headers.values("Sec-WebSocket-Version")
        guard versions.count == 1, ASCII.trimmed(versions[0]) == "13" else {
            return .failure(Refusal(reason: .unsupportedVersion))
        }
        let keys = headers.values("Sec-WebSocket-Key")
        guard keys.count == 1, isValidKey(String(ASCII.trimmed(keys[0]))) else { return .failure(Refusal(reason: .badKey)) }
        let origins = headers.values("Origin")
        if !origins.isEmpty {
            guard origins.count == 1, let origin = WebOrigin(ASCII.trimmed(origins[0])),
                origin == publicOrigin || allowedOrigins.contains(origin)
            else { return .failure(Refusal(reason: .forbiddenOrigin)) }
        }
        let protocols = headers.values("Sec-WebSocket-Protocol").flatMap { value in
            value.split(separator: ",").map { String(ASCII.trimmed($0)) }.filter { !$0.isEmpty }
        }
        return .success(Request(key: String(ASCII.trimmed(keys[0])), protocols: protocols))
    }

    /// Whether `key` is the base64 (with padding) of exactly 16 bytes: 22 characters of the alphabet, the last of
    /// them carrying no stray bits, then `==`.
    public static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        for byte in bytes[0..<22] where base64Value(byte) == nil { return false }
        return base64Value(bytes[21])! & 0x0F == 0
    }

    /// The bytes whose SHA-1, in base64, is `Sec-WebSocket-Accept`: the key followed by the GUID.
    public static func acceptInput(key: String) -> [UInt8] {
        Array((key + guid).utf8)
    }

    /// The `101 Switching Protocols` response.
    /// - Parameters:
    ///   - accept: `Sec-WebSocket-Accept`, base64 of the SHA-1 of ``acceptInput(key:)``.
    ///   - subprotocol: the subprotocol chosen among those offered, or nil.
    public static func response(accept: String, subprotocol: String?) -> HTTPResponse {
        var headers: HTTPHeaders = ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": accept]
        if let subprotocol { headers.add("Sec-WebSocket-Protocol", subprotocol) }
        return HTTPResponse(status: HTTPStatus(code: 101, reason: "Switching Protocols"), headers: headers)
    }

    private static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }

    /// Whether the comma-separated `list` has `token` (ASCII case ignored).
    private static func listContains(_ list: String, _ token: String) -> Bool {
        list.split(separator: ",").contains { ASCII.trimmed($0).lowercased() == token }
    }
}
