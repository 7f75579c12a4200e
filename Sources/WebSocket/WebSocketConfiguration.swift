import ConfigurationReading
import HTTP1

/// Every limit and timer of the server's WebSockets in one place.
///
/// ``init(config:)`` reads the operator's keys from a reader of whole names (it scopes itself to
/// `POSTERN_WEBSOCKET`) and refuses a bad value naming its key.
///
/// ## Configuration keys
/// - `POSTERN_WEBSOCKET_MAX_MESSAGE_BYTES` (125 to 67108864, default 1048576, 1 MiB): ``maxMessageBytes``.
/// - `POSTERN_WEBSOCKET_MAX_QUEUED_BYTES` (1024 to 67108864, default 1048576, 1 MiB): ``maxQueuedBytes``.
/// - `POSTERN_WEBSOCKET_PING_SECONDS` (1 to 3600, default 30): ``pingInterval``.
/// - `POSTERN_WEBSOCKET_PONG_TIMEOUT_SECONDS` (1 to 7200, more than the ping interval, default 60): ``pongTimeout``.
/// - `POSTERN_WEBSOCKET_CLOSE_TIMEOUT_SECONDS` (1 to 60, default 5): ``closeTimeout``.
/// - `POSTERN_WEBSOCKET_ALLOWED_ORIGINS` (comma-separated origins, default none): ``allowedOrigins``.
public struct WebSocketConfiguration: Sendable, Equatable {
    /// The most bytes one message (its fragments together) may carry; a larger one closes the socket with 1009.
    /// Default 1 MiB.
    public var maxMessageBytes = 1024 * 1024
    /// The most bytes waiting on one socket, each way: a reader that falls this far behind, or a client whose
    /// messages the handler leaves unread past it, is closed with 1008 rather than grow a queue or slow anyone else.
    /// Default 1 MiB.
    public var maxQueuedBytes = 1024 * 1024
    /// How often the server pings. Default 30 s.
    public var pingInterval: Duration = .seconds(30)
    /// How long a client may stay silent (no pong, no frame at all) before the socket is closed. Default 60 s:
    /// two pings unanswered.
    public var pongTimeout: Duration = .seconds(60)
    /// How long the server waits for the client's close frame after sending its own, before it closes the
    /// connection anyway. Default 5 s.
    public var closeTimeout: Duration = .seconds(5)
    /// Origins, besides the server's public origin, whose pages may open a socket: an `Origin` header naming any
    /// other is refused with 403 before the upgrade. A request without `Origin` (not from a browser) is not
    /// refused for it. Default none.
    public var allowedOrigins: [WebOrigin] = []

    /// The defaults.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names).
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        self.init()
        let config = config.scoped(to: "POSTERN_WEBSOCKET")
        if let bytes = try config.integer("MAX_MESSAGE_BYTES") { maxMessageBytes = bytes }
        if let bytes = try config.integer("MAX_QUEUED_BYTES") { maxQueuedBytes = bytes }
        if let seconds = try config.integer("PING_SECONDS") { pingInterval = .seconds(seconds) }
        if let seconds = try config.integer("PONG_TIMEOUT_SECONDS") { pongTimeout = .seconds(seconds) }
        if let seconds = try config.integer("CLOSE_TIMEOUT_SECONDS") { closeTimeout = .seconds(seconds) }
        if let origins = config.list("ALLOWED_ORIGINS") {
            allowedOrigins = try origins.map { text in
                guard let origin = WebOrigin(text), ["http", "https"].contains(origin.scheme) else {
                    throw config.error("ALLOWED_ORIGINS", "must list origins such as https://app.example (got \"\(text)\")")
                }
                return origin
            }
        }
        try validate()
    }

    /// Refuses settings the sockets cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        let checks: [(Bool, String, String)] = [
            (
                (125...64 * 1024 * 1024).contains(maxMessageBytes), "POSTERN_WEBSOCKET_MAX_MESSAGE_BYTES",
                "must be 125 to 67108864"
            ),
            (
                (1024...64 * 1024 * 1024).contains(maxQueuedBytes), "POSTERN_WEBSOCKET_MAX_QUEUED_BYTES",
                "must be 1024 to 67108864"
            ),
            (
                pingInterval >= .seconds(1) && pingInterval <= .seconds(3600), "POSTERN_WEBSOCKET_PING_SECONDS",
                "must be 1 to 3600"
            ),
            (
                pongTimeout > pingInterval && pongTimeout <= .seconds(7200), "POSTERN_WEBSOCKET_PONG_TIMEOUT_SECONDS",
                "must be more than POSTERN_WEBSOCKET_PING_SECONDS and at most 7200"
            ),
            (
                closeTimeout >= .seconds(1) && closeTimeout <= .seconds(60), "POSTERN_WEBSOCKET_CLOSE_TIMEOUT_SECONDS",
                "must be 1 to 60"
            ),
        ]
        for (ok, key, message) in checks where !ok {
            throw ConfigurationError(key: key, message: message)
        }
    }
}
