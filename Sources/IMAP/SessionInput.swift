import BufferBudget

/// The client's bytes that a session (IMAP's or POP3's) has received and not yet read, and the framer that reads them.
/// Bytes wait here while the driver works on a command, up to `maxWaitingBytes` before the session asks for no more.
struct SessionInput: Sendable {
    /// The framer, in line mode or not as the session needs.
    var framer: IMAPCommandFramer
    /// How many bytes may wait before ``isFull``.
    let maxWaitingBytes: Int
    private var bytes: [UInt8] = []
    private var index = 0

    init(limits: IMAPLimits, budget: BufferBudget? = nil, maxWaitingBytes: Int, readsLines: Bool = false) {
        framer = IMAPCommandFramer(limits: limits, budget: budget)
        framer.readsLines = readsLines
        self.maxWaitingBytes = maxWaitingBytes
    }

    /// Whether bytes wait to be read.
    var hasWaitingBytes: Bool { index < bytes.count }

    /// Whether as many bytes wait as may: the driver should read no more from the socket.
    var isFull: Bool { bytes.count - index >= maxWaitingBytes }

    mutating func append(_ new: some Collection<UInt8>) {
        if index == bytes.count {
            bytes = Array(new)
            index = 0
        } else {
            bytes.append(contentsOf: new)
        }
    }

    /// The next event in the waiting bytes, or nil when they run out first.
    mutating func next() -> IMAPFramerEvent? {
        let event = framer.next(bytes, from: &index)
        if index == bytes.count {
            bytes = []
            index = 0
        }
        return event
    }

    /// Drops every waiting byte and the command partly read (after STARTTLS, or a close).
    mutating func drop() {
        bytes = []
        index = 0
        let readsLines = framer.readsLines
        framer = IMAPCommandFramer(limits: framer.limits, budget: framer.budget)
        framer.readsLines = readsLines
    }
}
