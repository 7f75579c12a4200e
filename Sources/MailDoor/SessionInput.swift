/// The client's bytes that a session (IMAP's or POP3's) has received and not yet read, and the framer that reads them.
/// Bytes wait here while the driver works on a command, up to `maxWaitingBytes` before the session asks for no more.
///
/// Inlinable so that each session's input is compiled specialized for its framer, in its own module: it runs for
/// every command.
public struct SessionInput<Framer: SessionFramer>: Sendable {
    /// The framer, as the session sets it (IMAP's line mode, its limits before and after sign-in).
    public var framer: Framer
    /// How many bytes may wait before ``isFull``.
    public let maxWaitingBytes: Int
    @usableFromInline var bytes: [UInt8] = []
    @usableFromInline var index = 0

    /// Input read through `framer`, at most `maxWaitingBytes` of it waiting.
    @inlinable
    public init(framer: Framer, maxWaitingBytes: Int) {
        self.framer = framer
        self.maxWaitingBytes = maxWaitingBytes
    }

    /// Whether bytes wait to be read.
    @inlinable
    public var hasWaitingBytes: Bool { index < bytes.count }

    /// Whether as many bytes wait as may: the driver should read no more from the socket.
    @inlinable
    public var isFull: Bool { bytes.count - index >= maxWaitingBytes }

    /// Adds bytes the client sent after those waiting.
    @inlinable
    public mutating func append(_ new: some Collection<UInt8>) {
        if index == bytes.count {
            bytes = Array(new)
            index = 0
        } else {
            bytes.append(contentsOf: new)
        }
    }

    /// The next event in the waiting bytes, or nil when they run out first.
    @inlinable
    public mutating func next() -> Framer.Event? {
        let event = framer.next(bytes, from: &index)
        if index == bytes.count {
            bytes = []
            index = 0
        }
        return event
    }

    /// Drops every waiting byte and the command partly read (after STARTTLS, or a close).
    @inlinable
    public mutating func drop() {
        bytes = []
        index = 0
        framer.reset()
    }
}
