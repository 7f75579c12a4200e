/// What cuts a mail session's input into its units (IMAP's commands with their literals, POP3's lines): bytes in,
/// one event at a time out, the same events whether the bytes come whole or one at a time. ``SessionInput`` reads
/// through one.
public protocol SessionFramer: Sendable {
    /// What the framer finds in the bytes.
    associatedtype Event

    /// Reads `input` from `index` until an event or the end of the input, advancing `index` past what it read.
    /// - Returns: the event, or nil when the input ran out first (the bytes read are kept for the next call).
    mutating func next(_ input: [UInt8], from index: inout Int) -> Event?

    /// Forgets what is partly read, keeping the framer's settings (after `STARTTLS`/`STLS`, or a close).
    mutating func reset()
}
