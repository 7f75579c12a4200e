/// The client's bytes that a session (IMAP's or POP3's) has received and not yet read, and the framer that reads them.
/// Bytes wait here while the driver works on a command; the session says how many may wait (``waitingBytes``).
struct SessionInput: Sendable {
    /// The framer, in line mode or not as the session needs.
    var framer: IMAPCommandFramer
    private var bytes: [UInt8] = []
    private var index = 0

    init(limits: IMAPLimits, readsLines: Bool = false) {
        framer = IMAPCommandFramer(limits: limits)
        framer.readsLines = readsLines
    }

    /// How many bytes wait to be read.
    var waitingBytes: Int { bytes.count - index }

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
        framer = IMAPCommandFramer(limits: framer.limits)
        framer.readsLines = readsLines
    }
}
