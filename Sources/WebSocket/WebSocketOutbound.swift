/// What a ``WebSocketHandler`` sends: messages and the closing handshake, in the order of the calls, from any task.
/// The server's connection keeps the protocol (frames, the send-queue limit, the close handshake).
public struct WebSocketOutbound: Sendable {
    /// One thing the handler asked for.
    public enum Command: Sendable, Equatable {
        /// Send the message.
        case send(WebSocketMessage)
        /// Start the closing handshake with the code and reason.
        case close(WebSocketCloseCode, String)
    }

    private let write: @Sendable (Command) -> Void

    /// An outbound that hands each command to `write` (the server's connection, or a test's record).
    public init(_ write: @escaping @Sendable (Command) -> Void) {
        self.write = write
    }

    /// Sends `message`; nothing once the socket is closing. A reader that lets `maxQueuedBytes` pile up is closed
    /// with 1008 instead.
    public func send(_ message: WebSocketMessage) { write(.send(message)) }

    /// Starts the closing handshake with `code` and `reason` (the client is told; the connection ends when it
    /// answers, or after the close timeout). The handler's `inbound` ends and its task is cancelled.
    public func close(_ code: WebSocketCloseCode, reason: String) { write(.close(code, reason)) }
}
