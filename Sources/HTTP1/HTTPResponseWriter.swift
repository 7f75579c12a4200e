/// The writer of one open-ended response (a `text/event-stream`), as a handler sees it: a complete answer instead
/// (a refusal), or a head followed by bytes for as long as the stream lasts. The response has no `Content-Length`:
/// it ends when the connection closes, after `finish()` or when the server ends it.
///
/// Calls are taken in the order they are made; make them from one task at a time.
public protocol HTTPResponseWriter: AnyObject, Sendable {
    /// Answers with a complete response instead of a stream (a refusal found before it opens). Nothing may follow.
    func respond(_ response: HTTPResponse)

    /// Opens the stream: `head`'s status and header fields go out, then its body as the stream's first bytes.
    func open(_ head: HTTPResponse)

    /// Appends `bytes` to the open stream. Past the server's cap on unsent stream bytes (a reader too slow), the
    /// server ends the stream instead and `onEnd` handlers run.
    func write(_ bytes: [UInt8])

    /// Ends the stream: the connection closes once what was written has gone out.
    func finish()

    /// Calls `handler` once, from any thread, when the server ended the stream or will take no more of it (the
    /// client went away, the server shuts down, the reader fell too far behind, `finish()`); at once when that has
    /// happened already.
    func onEnd(_ handler: @escaping @Sendable () -> Void)

    /// Whether the stream has ended (see `onEnd`).
    var hasEnded: Bool { get }
}
