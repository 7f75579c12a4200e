/// What ``IMAPCommandFramer`` found in the client's bytes.
public enum IMAPFramerEvent: Sendable, Equatable {
    /// A whole command: its text with each literal inline (`{n}` CRLF, then its n bytes), the final line end removed.
    case command([UInt8])
    /// A synchronizing literal was announced and fits: the server sends a continuation request (`+ ...`), and the
    /// client its bytes.
    case literalContinuation
    /// One line read while ``IMAPCommandFramer/readsLines`` is set (an `AUTHENTICATE` response, `IDLE`'s `DONE`),
    /// its line end removed.
    case line([UInt8])
    /// A command refused while it was read: answered `BAD` under its tag (untagged when it had none readable). The
    /// rest of the command was read and dropped; the next command follows.
    case refused(tag: String?, IMAPCommandError)
    /// A command refused in a way that leaves no next command to find (a non-synchronizing literal beyond every
    /// limit, whose bytes would take unbounded time to skip): answered `BAD`, then `BYE`, and the connection closed.
    case refusedAndClosed(tag: String?, IMAPCommandError)
}
