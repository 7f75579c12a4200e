import AuthCrypto
import ConfigurationReading
import HTTP1
import Testing
import WebSocket

@Suite("WebSocket opening handshake (RFC 6455 §4.2) and configuration")
struct WebSocketHandshakeTests {
    static let publicOrigin = WebOrigin("https://mail.example")

    static func headers(_ extra: [(String, String)] = [], dropping: Set<String> = []) -> HTTPHeaders {
        var pairs = [
            ("Host", "mail.example"), ("Upgrade", "websocket"), ("Connection", "keep-alive, Upgrade"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
        ].filter { !dropping.contains($0.0) }
        pairs += extra
        return HTTPHeaders(pairs)
    }

    static func validate(
        _ headers: HTTPHeaders, method: HTTPMethod = .GET, version: HTTPVersion = .http1_1
    ) -> Result<WebSocketHandshake.Request, WebSocketHandshake.Refusal> {
        WebSocketHandshake.validate(
            method: method, version: version, headers: headers, publicOrigin: publicOrigin,
            allowedOrigins: [WebOrigin("http://localhost:3000")!])
    }

    @Test("RFC 6455 §1.3: the sample key's accept value")
    func acceptValue() {
        let accept = Base64.encode(SHA1.hash(WebSocketHandshake.acceptInput(key: "dGhlIHNhbXBsZSBub25jZQ==")))
        #expect(accept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let response = WebSocketHandshake.response(accept: accept, subprotocol: "jmap")
        #expect(response.status.code == 101)
        #expect(response.headers["Sec-WebSocket-Accept"] == accept)
        #expect(response.headers["Upgrade"] == "websocket")
        #expect(response.headers["Sec-WebSocket-Protocol"] == "jmap")
        #expect(!response.headers.contains("Sec-WebSocket-Extensions"))
    }

    @Test("a valid request passes, with its subprotocols; permessage-deflate is not taken up")
    func valid() throws {
        let request = try Self.validate(
            Self.headers([
                ("Sec-WebSocket-Protocol", "jmap, chat"), ("Sec-WebSocket-Extensions", "permessage-deflate"),
                ("Origin", "https://MAIL.example:443"),
            ])
        ).get()
        #expect(request.key == "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(request.protocols == ["jmap", "chat"])
        #expect((try? Self.validate(Self.headers([("Origin", "http://localhost:3000")])).get()) != nil)
    }

    @Test("each failed check refuses with its status and headers")
    func refusals() {
        func reason(_ result: Result<WebSocketHandshake.Request, WebSocketHandshake.Refusal>) -> WebSocketHandshake.Refusal.Reason? {
            if case .failure(let refusal) = result { return refusal.reason }
            return nil
        }
        #expect(reason(Self.validate(Self.headers(), method: .POST)) == .notGet)
        #expect(reason(Self.validate(Self.headers(), version: .http1_0)) == .notHTTP11)
        #expect(reason(Self.validate(Self.headers(dropping: ["Upgrade"]))) == .notUpgrade)
        #expect(reason(Self.validate(Self.headers(dropping: ["Connection"]))) == .noConnectionUpgrade)
        #expect(reason(Self.validate(Self.headers([("Sec-WebSocket-Version", "8")], dropping: ["Sec-WebSocket-Version"]))) == .unsupportedVersion)
        #expect(reason(Self.validate(Self.headers(dropping: ["Sec-WebSocket-Version"]))) == .unsupportedVersion)
        #expect(reason(Self.validate(Self.headers(dropping: ["Sec-WebSocket-Key"]))) == .badKey)
        #expect(reason(Self.validate(Self.headers([("Sec-WebSocket-Key", "x")]))) == .badKey)
        #expect(reason(Self.validate(Self.headers([("Origin", "https://evil.example")]))) == .forbiddenOrigin)
        #expect(reason(Self.validate(Self.headers([("Origin", "null")]))) == .forbiddenOrigin)

        let version = WebSocketHandshake.Refusal(reason: .unsupportedVersion)
        #expect(version.status.code == 426)
        #expect(version.headers["Sec-WebSocket-Version"] == "13")
        #expect(WebSocketHandshake.Refusal(reason: .notUpgrade).headers["Upgrade"] == "websocket")
        #expect(WebSocketHandshake.Refusal(reason: .badKey).status == .badRequest)
        #expect(WebSocketHandshake.Refusal(reason: .forbiddenOrigin).status == .forbidden)
    }

    @Test(
        "keys: base64 of exactly 16 bytes",
        arguments: [
            ("dGhlIHNhbXBsZSBub25jZQ==", true), ("AAAAAAAAAAAAAAAAAAAAAA==", true), ("dGhlIHNhbXBsZSBub25jZR==", false),
            ("dGhlIHNhbXBsZSBub25jZQ=", false), ("dGhlIHNhbXBsZSBub25jZQ", false), ("dGhlIHNhbXBsZSBub25jZ!==", false),
            ("dGhlIHNhbXBsZSBub25jZQ==AAAA", false), ("", false),
        ])
    func keys(key: String, valid: Bool) {
        #expect(WebSocketHandshake.isValidKey(key) == valid)
    }

    @Test("configuration: defaults, keys read under POSTERN_WEBSOCKET_, bad values named")
    func configuration() throws {
        let defaults = WebSocketConfiguration()
        #expect(defaults.maxMessageBytes == 1_048_576 && defaults.pingInterval == .seconds(30))
        #expect(defaults.pongTimeout == .seconds(60) && defaults.allowedOrigins.isEmpty)
        let values = [
            "POSTERN_WEBSOCKET_MAX_MESSAGE_BYTES": "4096", "POSTERN_WEBSOCKET_PING_SECONDS": "10",
            "POSTERN_WEBSOCKET_ALLOWED_ORIGINS": "https://a.example, http://localhost:8080",
        ]
        let read = try WebSocketConfiguration(config: ConfigurationReader { values[$0] })
        #expect(read.maxMessageBytes == 4096 && read.pingInterval == .seconds(10))
        #expect(read.allowedOrigins == [WebOrigin("https://a.example")!, WebOrigin("http://localhost:8080")!])
        for (key, value) in [
            ("POSTERN_WEBSOCKET_ALLOWED_ORIGINS", "not an origin"), ("POSTERN_WEBSOCKET_MAX_MESSAGE_BYTES", "12"),
            ("POSTERN_WEBSOCKET_PONG_TIMEOUT_SECONDS", "20"),
        ] {
            #expect(throws: ConfigurationError.self) { try WebSocketConfiguration(config: ConfigurationReader { $0 == key ? value : nil }) }
            do {
                _ = try WebSocketConfiguration(config: ConfigurationReader { $0 == key ? value : nil })
            } catch let error as ConfigurationError {
                #expect(error.key == key)
            } catch {}
        }
    }
}
