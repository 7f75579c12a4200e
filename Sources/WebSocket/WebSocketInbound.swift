/// The messages a WebSocket's client sends, in order, as a ``WebSocketHandler`` reads them. It ends (nil) when the
/// socket stops being open, and at once in a cancelled task.
///
/// One reader at a time: a second loop over it may start after the first has stopped.
public struct WebSocketInbound: AsyncSequence, Sendable {
    public typealias Element = WebSocketMessage
    public typealias Failure = Never

    private let messages: AsyncStream<WebSocketMessage>
    private let taken: @Sendable (WebSocketMessage) -> Void

    /// The messages of `messages`; `taken` is told of each as it is read (the server counts what waits unread).
    public init(_ messages: AsyncStream<WebSocketMessage>, taken: @escaping @Sendable (WebSocketMessage) -> Void) {
        self.messages = messages
        self.taken = taken
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(messages: messages.makeAsyncIterator(), taken: taken)
    }

    /// Runs `body` while reading and dropping what the client sends, and returns what it returns: for a handler
    /// that only pushes. The socket stopping being open cancels `body` (as it cancels the whole handler).
    public func discarding<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in self {} }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// Reads the next message.
    public struct Iterator: AsyncIteratorProtocol {
        var messages: AsyncStream<WebSocketMessage>.Iterator
        let taken: @Sendable (WebSocketMessage) -> Void

        public mutating func next() async -> WebSocketMessage? {
            guard let message = await messages.next() else { return nil }
            taken(message)
            return message
        }
    }
}

extension WebSocketMessage {
    /// The bytes the message carries (its payload), as the send and unread limits count them.
    public var payloadCount: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let bytes): return bytes.count
        }
    }
}
