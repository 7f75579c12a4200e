import HTTP1
import Synchronization

/// The server's `HTTPResponseWriter`: what a stream's producer writes travels to the connection's loop as
/// `Delivery` completions, in the order written, and the connection's pipeline says when the stream has ended.
///
/// Thread-safe: its state is behind a mutex; the poster it is given (`attach`) hops to the loop by itself.
public final class HTTPResponseStream: HTTPResponseWriter {
    /// What the producer asked for.
    enum Message {
        case response(HTTPResponse)
        case open(HTTPResponse)
        case bytes([UInt8])
        case finish
    }

    /// One message on its way to the connection, as a `ConnectionEvent.completed` value.
    final class Delivery: Sendable {
        let stream: HTTPResponseStream
        let message: Message

        init(stream: HTTPResponseStream, message: Message) {
            self.stream = stream
            self.message = message
        }
    }

    /// The request's position in its connection's pipeline.
    let sequence: UInt64
    /// The way to the connection (the service's completion), until the stream ends.
    private let post = Mutex<(@Sendable (any AnyObject & Sendable) -> Void)?>(nil)
    private let end = HTTPStreamEnd()

    init(sequence: UInt64) {
        self.sequence = sequence
    }

    /// Gives the stream the way to its connection (the service's completion); called before the work starts.
    func attach(_ post: @escaping @Sendable (any AnyObject & Sendable) -> Void) {
        self.post.withLock { $0 = post }
    }

    public func respond(_ response: HTTPResponse) { send(.response(response), last: true) }

    public func open(_ head: HTTPResponse) { send(.open(head), last: false) }

    public func write(_ bytes: [UInt8]) { send(.bytes(bytes), last: false) }

    public func finish() { send(.finish, last: true) }

    public func onEnd(_ handler: @escaping @Sendable () -> Void) { end.onEnd(handler) }

    public var hasEnded: Bool { end.hasEnded }

    /// The connection takes no more of this stream: runs the `onEnd` handlers once. Called by the pipeline.
    func ended() {
        post.withLock { $0 = nil }
        end.end()
    }

    /// Posts `message` unless the stream has ended; a `last` message ends it.
    private func send(_ message: Message, last: Bool) {
        let post = self.post.withLock { $0 }
        post?(Delivery(stream: self, message: message))
        if last { ended() }
    }
}
